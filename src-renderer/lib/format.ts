import { counted } from '../../src-shared/counted';
import { currencyDecimals, formatAmount } from '../../src-shared/money';
import type { MinorAmount } from '../../src-shared/search';

/** The user's locale (the page's language settings); Intl falls back when it is unknown. */
const locale = typeof navigator === 'undefined' ? undefined : navigator.language;

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * Money for people: the locale's digits, grouping and currency sign, from exact minor units.
 * The amount goes to Intl as a decimal string, so no float ever rounds a cent.
 */
export function formatMoney(amount: MinorAmount | null | undefined): string {
  if (!amount) return '—';
  let format = moneyFormats.get(amount.currency);
  if (!format) {
    const digits = currencyDecimals(amount.currency);
    try {
      format = new Intl.NumberFormat(locale, {
        style: 'currency',
        currency: amount.currency,
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      });
    } catch {
      format = new Intl.NumberFormat(locale, {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      });
    }
    moneyFormats.set(amount.currency, format);
  }
  return format.format(formatAmount(amount.minor, amount.currency) as Intl.StringNumericLiteral);
}

const dateFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
const shortDateFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeZone: 'UTC' });
const timeFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
const countFormat = new Intl.NumberFormat(locale);

/**
 * A calendar date ("2026-03-31") in the user's locale ("Mar 31, 2026" in en-US); it has no time
 * zone, so UTC keeps the day.
 */
export function formatDate(iso: string | null | undefined): string {
  return formatDay(iso, dateFormat);
}

/**
 * A calendar date in the locale's short form ("3/31/26" in en-US), for a column too narrow for
 * `formatDate`'s.
 */
export function formatShortDate(iso: string | null | undefined): string {
  return formatDay(iso, shortDateFormat);
}

function formatDay(iso: string | null | undefined, format: Intl.DateTimeFormat): string {
  if (!iso) return '—';
  const date = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? iso : format.format(date);
}

/** An instant in the user's time zone. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : timeFormat.format(date);
}

export function formatCount(value: number): string {
  return countFormat.format(value);
}

/** A count and its noun, which agrees with it: "1 transaction", "1,200 transactions". */
export function formatCounted(value: number, noun: { one: string; other: string }): string {
  return counted(value, noun.one, noun.other, formatCount);
}

export function formatBytes(size: number | null): string {
  if (size === null) return '—';
  if (size < 1024) return `${countFormat.format(size)} B`;
  if (size < 1024 * 1024) return `${countFormat.format(Math.round(size / 1024))} KB`;
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(size / 1024 / 1024)} MB`;
}

/** "CARD" → "Card", "TOP_UP" → "Top up", "FX_FEE" → "FX fee". */
export function humanize(value: string | null | undefined): string {
  if (!value) return '—';
  const text = value
    .toLowerCase()
    .replace(/_/g, ' ')
    .replace(/\b[a-z]+\b/g, (word) => (ACRONYMS.has(word) ? word.toUpperCase() : word));
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Words of the API's values that are said letter by letter: "FX fee", not "Fx fee". */
const ACRONYMS = new Set(['atm', 'bic', 'fx', 'iban', 'id', 'sepa', 'vat']);

/**
 * An expense line's type (API 1.44.0 lists five) in the words of a column headed "Type" in a
 * table headed "Lines": "Card", not "Card transaction line", which took three lines of a narrow
 * detail pane. A type the API adds later is humanized.
 */
export function lineTypeLabel(value: string | null | undefined): string {
  return (value && LINE_TYPES.get(value)) || humanize(value);
}

const LINE_TYPES = new Map([
  ['CARD_TRANSACTION_LINE', 'Card'],
  ['FX_FEE', 'FX fee'],
  ['INVOICE_LINE', 'Invoice'],
  ['REIMBURSEMENT_INVOICE_LINE', 'Reimbursement'],
  ['REIMBURSEMENT_INVOICE_LINE_SPLIT', 'Reimbursement, split'],
]);
