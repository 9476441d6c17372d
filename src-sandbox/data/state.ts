import { createHash } from 'node:crypto';
import type { Dimension, DimensionItem, Expense, ExpenseFile, Supplier } from '../../src-shared/api';
import { generateExpenses, type FileSpec } from './expenses';
import { makeGrain, makePdf, makePng } from './file-bytes';
import { fillTransactions } from './generate-transactions';
import { generateDimensions, generateReference, generateSuppliers, type Reference } from './organisation';
import { hash32 } from './random';
import { dayFromIso } from './time';
import { createTable, type TransactionTable } from './transactions';

/**
 * Everything the sandbox serves: generated once from the seed, then changed only through
 * the API's writes and the control surface. Small collections are plain arrays of wire
 * records; bank transactions live in the columnar table.
 */

export interface DataOptions {
  seed: number;
  transactions: number;
  /** Last booking day of the generated history (three years end here). */
  endDate: string;
  suppliers: number;
  /** Organisation setting: the ERP assigns supplier numbers, so creates omit `code`. */
  erpSupplierNumbers: boolean;
  /**
   * Expense files about this many KiB on average (each from half to one and a half times it,
   * by its seed), as scans and photos are; 0 leaves them as small as they are drawn (0.3–1 KB).
   */
  fileKb: number;
}

export interface State {
  options: DataOptions;
  reference: Reference;
  table: TransactionTable;
  suppliers: Supplier[];
  dimensions: Dimension[];
  items: DimensionItem[];
  expenses: Expense[];
  files: FileSpec[];
  /** Line id -> parent line id for REIMBURSEMENT_INVOICE_LINE_SPLIT lines. */
  splitParents: Map<string, string>;
  fileRecord(spec: FileSpec): ExpenseFile;
  fileBytes(spec: FileSpec): Buffer;
  /**
   * The file's bytes (and name and type, if given) from now on, size and sha256 with them: a
   * receipt that is not what it claims to be (cut short, empty, a zip called a PNG).
   */
  replaceFile(id: string, replacement: FileReplacement): void;
}

export interface FileReplacement {
  content: Uint8Array;
  name?: string;
  mimeType?: string;
}

export const DEFAULT_DATA: DataOptions = {
  seed: 42,
  transactions: 5000,
  endDate: '2026-10-31',
  suppliers: 300,
  erpSupplierNumbers: false,
  fileKb: 0,
};

/** A file's grain: from half to one and a half times the average, by the file's seed. */
function grainSize(seed: number, averageKb: number): number {
  return Math.round(averageKb * 1024 * (0.5 + hash32(seed, 0x5153) / 2 ** 32));
}

export function createState(options: DataOptions): State {
  const lastDay = dayFromIso(options.endDate);
  const firstDay = lastDay - 3 * 365 + 1;
  const firstSec = firstDay * 86_400;
  const endSec = lastDay * 86_400 + 86_399;
  const reference = generateReference(options.seed, firstDay, lastDay, firstSec - 30 * 86_400);
  const suppliers = generateSuppliers(options.seed, options.suppliers, firstSec - 60 * 86_400, endSec);
  const { dimensions, items } = generateDimensions(options.seed, firstSec - 30 * 86_400);
  const table = createTable(options.seed, reference.organisationId, reference.wallets, options.transactions);
  fillTransactions(table, {
    seed: options.seed,
    count: options.transactions,
    firstDay,
    lastDay,
    suppliers,
    users: reference.users,
  });
  const { expenses, files } = generateExpenses(options.seed, table, reference, items, suppliers, endSec);
  const splitParents = new Map<string, string>();
  for (const expense of expenses) {
    for (const line of expense.lines) if (line.parentLineId) splitParents.set(line.id, line.parentLineId);
  }
  const bytes = new Map<string, Buffer>();
  const fileBytes = (spec: FileSpec): Buffer => {
    let content = bytes.get(spec.id);
    if (!content) {
      const grain =
        options.fileKb > 0 ? makeGrain(spec.seed, grainSize(spec.seed, options.fileKb)) : undefined;
      content =
        spec.mimeType === 'image/png'
          ? makePng(spec.seed, spec.text.length + 4, grain)
          : makePdf(spec.text, grain);
      bytes.set(spec.id, content);
    }
    return content;
  };
  // Size and sha256 are computed once per file, on first listing or download.
  const records = new Map<string, ExpenseFile>();
  const fileRecord = (spec: FileSpec): ExpenseFile => {
    let record = records.get(spec.id);
    if (!record) {
      const content = fileBytes(spec);
      record = {
        id: spec.id,
        expenseId: spec.expenseId,
        expenseLineId: spec.expenseLineId,
        name: spec.name,
        mimeType: spec.mimeType,
        size: content.length,
        sha256: createHash('sha256').update(content).digest('hex'),
        createTime: spec.createTime,
      };
      records.set(spec.id, record);
    }
    return record;
  };
  const replaceFile = (id: string, { content, name, mimeType }: FileReplacement): void => {
    const spec = files.find((file) => file.id === id.toLowerCase());
    if (!spec) throw new Error(`No file ${id}.`);
    if (name !== undefined) spec.name = name;
    if (mimeType !== undefined) spec.mimeType = mimeType;
    bytes.set(spec.id, Buffer.from(content));
    records.delete(spec.id);
  };
  return {
    options,
    reference,
    table,
    suppliers,
    dimensions,
    items,
    expenses,
    files,
    splitParents,
    fileRecord,
    fileBytes,
    replaceFile,
  };
}
