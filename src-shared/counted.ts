/**
 * A count and its noun, which agrees with it: "1 file", "2,071 files". `format` writes the
 * number (the window groups it in the user's language; the command line writes it plain).
 */
export function counted(
  n: number,
  one: string,
  other: string,
  format: (n: number) => string = String,
): string {
  return `${format(n)} ${n === 1 ? one : other}`;
}
