import { formatAmount } from '../../src-shared/money';

/**
 * A result as `--json` prints it: every amount (`{ minor, currency }`, wherever it sits) also
 * as the wire writes it, a decimal string in major units beside its integer minor units
 * (`{ "minor": -123456, "currency": "EUR", "amount": "-1234.56" }`), so that a script needs no
 * table of currency decimals and no float comes near the money.
 */
export function withDecimalAmounts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withDecimalAmounts);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([key, field]) => [key, withDecimalAmounts(field)] as const);
  const record = Object.fromEntries(entries) as Record<string, unknown>;
  const { minor, currency } = record;
  if (typeof minor === 'number' && typeof currency === 'string' && !('amount' in record))
    record['amount'] = formatAmount(minor, currency);
  return record;
}

/** The value as `--json` writes it on stdout: indented, amounts with their decimal strings. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(withDecimalAmounts(value), null, 2)}\n`;
}

/** A cell of a plain-text table: on one line, whatever the text holds. */
export function cell(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}
