import { parseArgs } from 'node:util';
import {
  accountText,
  dimensionText,
  type ExpenseDetail,
  type ExpenseFileSummary,
  type TransactionDetail,
} from '../../src-shared/details';
import { formatIban } from '../../src-shared/bank-details';
import { AppError } from '../../src-shared/errors';
import { formatAmount } from '../../src-shared/money';
import type { DimensionItemRow, DimensionRow, MinorAmount, ReviewState } from '../../src-shared/search';
import type { Core } from '../core';
import { expenseDetail, supplierDetail, transactionDetail, type SupplierDetail } from '../details';
import type { OutboxItem } from '../outbox';
import { specs } from '../outbox/records';
import { listDimensions, searchDimensionItems } from '../search';
import type { CacheDb } from '../store';
import { chooseProfile } from './filters';
import { type CliIo, UsageError } from './io';
import { cell, jsonText } from './json';

export const showUsage = `satchel show ID [--profile NAME_OR_ID] [--json]`;

type Found =
  | ({ kind: 'transaction' } & TransactionDetail)
  | ({ kind: 'expense' } & ExpenseDetail)
  | { kind: 'supplier'; supplier: SupplierDetail }
  | { kind: 'dimension'; dimension: DimensionRow }
  | { kind: 'dimensionItem'; item: DimensionItemRow };

/**
 * One record of the offline copy by its id, whatever it is (a bank transaction, an expense, a
 * supplier, a dimension or one of its items), with what its detail pane shows: its fields, its
 * review state, its files and linked records, and the offline edits of it not yet sent.
 */
export async function showCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { profile: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const [id, ...extra] = positionals;
  if (!id?.trim()) throw new UsageError('show needs the id of a record');
  if (extra.length > 0) throw new UsageError(`show takes one id, not also "${extra[0]}"`);
  const profile = chooseProfile(core, values.profile);
  const found = find(core.cacheOf(profile.id), id);
  if (!found)
    throw new AppError(
      'NOT_FOUND',
      `No transaction, expense, supplier, dimension or dimension item ${id} is in the offline copy of "${profile.name}". Sync, then try again.`,
    );
  const recordId = recordIdOf(found);
  const edits = core.outbox.list(profile.id).filter((item) => item.recordId === recordId);
  if (values.json) {
    io.stdout.write(jsonText({ ...found, edits }));
    return;
  }
  io.stdout.write(facts([...describe(found), ...editFacts(edits)]));
}

/** The record of that id, looked for kind by kind; null when the offline copy has none. */
function find(cache: CacheDb, id: string): Found | null {
  const attempt = <T>(read: () => T): T | null => {
    try {
      return read();
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  };
  const transaction = attempt(() => transactionDetail(cache, id));
  if (transaction) return { kind: 'transaction', ...transaction };
  const expense = attempt(() => expenseDetail(cache, id));
  if (expense) return { kind: 'expense', ...expense };
  const supplier = attempt(() => supplierDetail(cache, id));
  if (supplier) return { kind: 'supplier', supplier };
  const dimension = listDimensions(cache, { includeDeleted: true }).find((row) => row.id === id);
  if (dimension) return { kind: 'dimension', dimension };
  const [item] = searchDimensionItems(cache, {
    id,
    includeDeleted: true,
    pagination: { page: 1, pageSize: 1 },
  }).rows;
  return item ? { kind: 'dimensionItem', item } : null;
}

function recordIdOf(found: Found): string {
  switch (found.kind) {
    case 'transaction':
      return found.transaction.id;
    case 'expense':
      return found.expense.id;
    case 'supplier':
      return found.supplier.id;
    case 'dimension':
      return found.dimension.id;
    case 'dimensionItem':
      return found.item.id;
  }
}

type Fact = [label: string, value: string | null | undefined];

/** `label  value` lines, the values aligned; a label with several values repeats. */
function facts(rows: Fact[]): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${cell(value)}`.trimEnd()).join('\n') + '\n';
}

const money = (amount: MinorAmount | null | undefined) =>
  amount ? `${formatAmount(amount.minor, amount.currency)} ${amount.currency}` : '';
const yesNo = (value: boolean) => (value ? 'yes' : 'no');

function describe(found: Found): Fact[] {
  switch (found.kind) {
    case 'transaction': {
      const { transaction: t, account } = found;
      return [
        ['kind', 'bank transaction'],
        ['id', t.id],
        ['booking date', t.bookingDate],
        ['value date', t.valueDate],
        ['amount', money(t.amount)],
        ['type', t.transactionType],
        ['counterparty', t.counterparty],
        ['description', t.description],
        [
          'account',
          account ? `${account.name ?? ''} ${account.currency ?? ''} (${account.id})` : t.bankAccountId,
        ],
        ['account number', t.bankAccountNumber],
        ['matched', yesNo(t.matched)],
        ['group', t.groupId],
        ...found.fees.map((fee): Fact => ['fee', `${fee.feeType} ${money(fee.amount)}`]),
        ...found.group.map((row): Fact => [
          'in its group',
          `${row.id} ${row.bookingDate} ${money(row.amount)}`,
        ]),
        ...(t.deletedAt ? [['deleted', t.deletedAt] as Fact] : []),
        ...reviewFacts(t.review),
        ...found.expenses.map((e): Fact => [
          'expense',
          `${e.expense.id} ${money(e.expense.amount)} ${e.expense.supplierName ?? e.expense.merchantName ?? ''}`,
        ]),
        ...fileFacts(found.expenses.flatMap((e) => e.files)),
      ];
    }
    case 'expense': {
      const { expense: e } = found;
      const linked = found.bankTransaction;
      return [
        ['kind', 'expense'],
        ['id', e.id],
        ['date', e.expenseTime],
        ['amount', money(e.amount)],
        ['type', e.type],
        ['status', e.status],
        ['supplier', e.supplierId ? `${e.supplierName ?? ''} (${e.supplierId})` : ''],
        ['merchant', e.merchantName],
        ['description', e.description],
        ['booking text', e.bookingText],
        [
          'transaction',
          linked
            ? `${linked.id} ${linked.bookingDate} ${money(linked.amount)} ${linked.counterparty ?? ''}`
            : found.bankTransactionId
              ? `${found.bankTransactionId} (not in the offline copy)`
              : '',
        ],
        ...found.lines.map((line): Fact => [
          'line',
          [
            line.description ?? '',
            line.gross ? `gross ${money(line.gross)}` : '',
            line.net ? `net ${money(line.net)}` : '',
            line.vat ? `VAT ${money(line.vat)}` : '',
            line.expenseAccount ? `account ${accountText(line.expenseAccount)}` : '',
            line.taxRate ? `tax ${line.taxRate.name ?? line.taxRate.rate ?? line.taxRate.id}` : '',
            ...line.dimensions.map((d) => dimensionText(d) ?? ''),
          ]
            .filter(Boolean)
            .join(' · '),
        ]),
        ...(e.deletedAt ? [['deleted', e.deletedAt] as Fact] : []),
        ...reviewFacts(e.review),
        ...fileFacts(found.files),
      ];
    }
    case 'supplier': {
      const { supplier: s } = found;
      return [
        ['kind', 'supplier'],
        ['id', s.id],
        ['name', s.name],
        ['number', s.number],
        ['status', s.status],
        ['VAT id', s.vatIdNo],
        ['IBAN', s.iban === null ? null : formatIban(s.iban)],
        ['BIC', s.bic],
        ['currency', s.currency],
        ['updated', s.updateTime],
        ...(s.deletedAt ? [['deleted', s.deletedAt] as Fact] : []),
      ];
    }
    case 'dimension': {
      const { dimension: d } = found;
      return [
        ['kind', 'dimension'],
        ['id', d.id],
        ['name', d.name],
        ['code', d.code],
        ['status', d.status],
        ['items', String(d.itemCount)],
        ...(d.deletedAt ? [['deleted', d.deletedAt] as Fact] : []),
      ];
    }
    case 'dimensionItem': {
      const { item: i } = found;
      return [
        ['kind', 'dimension item'],
        ['id', i.id],
        ['dimension', i.dimensionId],
        ['name', i.name],
        ['code', i.code],
        ['status', i.status],
        ...(i.deletedAt ? [['deleted', i.deletedAt] as Fact] : []),
      ];
    }
  }
}

function reviewFacts(review: ReviewState): Fact[] {
  return [
    ['reviewed', review.reviewedAt ?? 'no'],
    ['flagged', review.flagged ? `yes${review.flagReason ? `: ${review.flagReason}` : ''}` : 'no'],
    ['note', review.note],
    ['tags', review.tags.join(', ')],
  ];
}

function fileFacts(files: ExpenseFileSummary[]): Fact[] {
  if (files.length === 0) return [['files', 'none']];
  return files.map((file): Fact => [
    'file',
    `${file.id} ${file.name ?? ''} (${[file.mimeType, file.size === null ? null : `${file.size} bytes`, file.downloaded ? 'downloaded' : 'not downloaded'].filter(Boolean).join(', ')})`,
  ]);
}

function editFacts(edits: OutboxItem[]): Fact[] {
  if (edits.length === 0) return [['offline edits', 'none']];
  return edits.map((item): Fact => [
    'offline edit',
    `${item.operationId} ${item.operation} ${specs[item.resource].label} ${item.status}${item.error ? `: ${item.error.message}` : ''}`,
  ]);
}
