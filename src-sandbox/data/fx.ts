import { currencyDecimals } from '../../src-shared/money';

/** Fixed demo exchange rates: value of one unit in EUR, in millionths (integers, never floats). */
const EUR_MILLIONTHS: Readonly<Record<string, number>> = {
  EUR: 1_000_000,
  USD: 920_000,
  GBP: 1_170_000,
  CHF: 1_040_000,
  JPY: 6_100,
  SEK: 87_000,
};

/** Converts minor units between currencies at the demo rates, rounding half away from zero. */
export function convertMinor(minor: number, from: string, to: string): number {
  if (from === to) return minor;
  const numerator = minor * (EUR_MILLIONTHS[from] ?? 1_000_000) * 10 ** currencyDecimals(to);
  const denominator = (EUR_MILLIONTHS[to] ?? 1_000_000) * 10 ** currencyDecimals(from);
  const magnitude = Math.round(Math.abs(numerator) / denominator);
  return numerator < 0 ? -magnitude : magnitude;
}

/** FX fee charged on a foreign-currency card payment: 1.75 % of the converted amount, at least one minor unit. */
export function fxFeeMinor(convertedMinor: number): number {
  return -Math.max(1, Math.round((Math.abs(convertedMinor) * 175) / 10_000));
}
