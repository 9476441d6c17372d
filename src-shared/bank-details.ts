import { z } from 'zod';
import { SupplierCreate, SupplierUpdate } from './api/suppliers';

/**
 * A supplier's bank details and VAT id as the user types them: checked, in words that say
 * what is wrong (an IBAN or BIC refused, a doubtful VAT id or BIC/IBAN pair only warned of),
 * and put in the form they are kept in. One module for the Suppliers form, the
 * outbox's check of an edit (IPC) and the CLI, so all three say the same.
 *
 * The checks apply to a value the user enters or changes, never to one that came from the
 * server: the API's own schemas (`api/suppliers.ts`) only bound their length, so a supplier
 * synced with a malformed IBAN is still read, shown and kept, and an edit that leaves the IBAN
 * alone is not refused because of it (an update carries only the fields it changes).
 */

/** The fields these checks cover, by their names in a supplier edit. */
export const BANK_FIELDS = ['iban', 'bic', 'vatIdNo'] as const;

/**
 * IBAN length of each country, with the adjective a message names it by. Source: the IBAN
 * Registry kept by SWIFT as registration authority of ISO 13616
 * (https://www.swift.com/standards/data-standards/iban-international-bank-account-number),
 * releases up to 2024. A country joining the registry is one line here.
 * Territories that use another country's IBANs (Åland: FI; Guadeloupe, Réunion, New
 * Caledonia…: FR; Jersey, Guernsey, Isle of Man: GB) are in IBAN_TERRITORIES below.
 */
const IBAN_COUNTRIES: Record<string, readonly [length: number, adjective: string]> = {
  AD: [24, 'Andorran'],
  AE: [23, 'Emirati'],
  AL: [28, 'Albanian'],
  AT: [20, 'Austrian'],
  AZ: [28, 'Azerbaijani'],
  BA: [20, 'Bosnian'],
  BE: [16, 'Belgian'],
  BG: [22, 'Bulgarian'],
  BH: [22, 'Bahraini'],
  BI: [27, 'Burundian'],
  BR: [29, 'Brazilian'],
  BY: [28, 'Belarusian'],
  CH: [21, 'Swiss'],
  CR: [22, 'Costa Rican'],
  CY: [28, 'Cypriot'],
  CZ: [24, 'Czech'],
  DE: [22, 'German'],
  DJ: [27, 'Djiboutian'],
  DK: [18, 'Danish'],
  DO: [28, 'Dominican'],
  EE: [20, 'Estonian'],
  EG: [29, 'Egyptian'],
  ES: [24, 'Spanish'],
  FI: [18, 'Finnish'],
  FK: [18, 'Falkland Islands'],
  FO: [18, 'Faroese'],
  FR: [27, 'French'],
  GB: [22, 'British'],
  GE: [22, 'Georgian'],
  GI: [23, 'Gibraltar'],
  GL: [18, 'Greenlandic'],
  GR: [27, 'Greek'],
  GT: [28, 'Guatemalan'],
  HN: [28, 'Honduran'],
  HR: [21, 'Croatian'],
  HU: [28, 'Hungarian'],
  IE: [22, 'Irish'],
  IL: [23, 'Israeli'],
  IQ: [23, 'Iraqi'],
  IS: [26, 'Icelandic'],
  IT: [27, 'Italian'],
  JO: [30, 'Jordanian'],
  KW: [30, 'Kuwaiti'],
  KZ: [20, 'Kazakh'],
  LB: [28, 'Lebanese'],
  LC: [32, 'Saint Lucian'],
  LI: [21, 'Liechtenstein'],
  LT: [20, 'Lithuanian'],
  LU: [20, 'Luxembourg'],
  LV: [21, 'Latvian'],
  LY: [25, 'Libyan'],
  MC: [27, 'Monegasque'],
  MD: [24, 'Moldovan'],
  ME: [22, 'Montenegrin'],
  MK: [19, 'North Macedonian'],
  MN: [20, 'Mongolian'],
  MR: [27, 'Mauritanian'],
  MT: [31, 'Maltese'],
  MU: [30, 'Mauritian'],
  NI: [28, 'Nicaraguan'],
  NL: [18, 'Dutch'],
  NO: [15, 'Norwegian'],
  OM: [23, 'Omani'],
  PK: [24, 'Pakistani'],
  PL: [28, 'Polish'],
  PS: [29, 'Palestinian'],
  PT: [25, 'Portuguese'],
  QA: [29, 'Qatari'],
  RO: [24, 'Romanian'],
  RS: [22, 'Serbian'],
  RU: [33, 'Russian'],
  SA: [24, 'Saudi'],
  SC: [31, 'Seychellois'],
  SD: [18, 'Sudanese'],
  SE: [24, 'Swedish'],
  SI: [19, 'Slovenian'],
  SK: [24, 'Slovak'],
  SM: [27, 'San Marino'],
  SO: [23, 'Somali'],
  ST: [25, 'São Tomé'],
  SV: [28, 'Salvadoran'],
  TL: [23, 'Timorese'],
  TN: [24, 'Tunisian'],
  TR: [26, 'Turkish'],
  UA: [29, 'Ukrainian'],
  VA: [22, 'Vatican'],
  VG: [24, 'British Virgin Islands'],
  XK: [20, 'Kosovan'],
  YE: [30, 'Yemeni'],
};

/** Territories whose accounts have their country's IBANs (the registry's "includes"). */
const IBAN_TERRITORIES: Record<string, readonly string[]> = {
  FI: ['AX'],
  FR: ['GF', 'GP', 'MQ', 'RE', 'PF', 'TF', 'YT', 'NC', 'BL', 'MF', 'PM', 'WF'],
  GB: ['IM', 'JE', 'GG'],
};

/** "A German", "An Irish" (a Ukrainian: the U sounds as "you"). */
const anOf = (adjective: string) => `${/^[AEIO]/.test(adjective) ? 'An' : 'A'} ${adjective}`;

/** A check of a typed value: the value to keep, or what is wrong with it. */
export type Checked = { value: string | null; problem?: undefined } | { value?: undefined; problem: string };

/** Spaces (any white space) out, letters upper case: the electronic form of an IBAN or BIC. */
export const compactCode = (typed: string): string => typed.replace(/\s+/g, '').toUpperCase();

/** ISO 7064 MOD 97-10 over an IBAN moved to end with its country and check digits. */
function mod97(iban: string): number {
  let remainder = 0;
  for (const char of iban.slice(4) + iban.slice(0, 4)) {
    const value = Number.parseInt(char, 36); // 0–9, then A = 10 … Z = 35
    remainder = (remainder * (value < 10 ? 10 : 100) + value) % 97;
  }
  return remainder;
}

/** What is wrong with an IBAN in its electronic form, or undefined when nothing is. */
export function ibanProblem(iban: string): string | undefined {
  const stray = /[^A-Z0-9]/.exec(iban);
  if (stray) return `An IBAN has only letters and digits: take out the "${stray[0]}".`;
  if (!/^[A-Z]{2}/.test(iban)) return 'An IBAN starts with the two letters of its country, like DE.';
  const country = iban.slice(0, 2);
  const known = IBAN_COUNTRIES[country];
  if (!known) {
    const home = Object.entries(IBAN_TERRITORIES).find(([, parts]) => parts.includes(country))?.[0];
    return home
      ? `Accounts in ${country} have IBANs starting with ${home}: check the first two letters.`
      : `${country} is not a country with IBANs: check the first two letters.`;
  }
  const [length, adjective] = known;
  if (iban.length !== length)
    return `${anOf(adjective)} IBAN has ${length} characters; this one has ${iban.length}.`;
  const digits = iban.slice(2, 4);
  if (!/^\d\d$/.test(digits) || ['00', '01', '99'].includes(digits))
    return `The 3rd and 4th characters of an IBAN are check digits from 02 to 98, not "${digits}".`;
  if (mod97(iban) !== 1) return "The IBAN's check digits do not match: a character is probably mistyped.";
  return undefined;
}

/** An IBAN as typed (spaces, lower case) checked and made electronic; blank clears it. */
export function checkIban(typed: string): Checked {
  const iban = compactCode(typed);
  if (iban === '') return { value: null };
  const problem = ibanProblem(iban);
  return problem ? { problem } : { value: iban };
}

/**
 * An IBAN for people to read, in groups of four ("DE89 3704 0044 0532 0130 00"). A value
 * that is no IBAN-like run of letters and digits (as a server may hold) is shown as it is.
 */
export function formatIban(value: string): string {
  const iban = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9]+$/.test(iban)) return value;
  return iban.replace(/(.{4})(?=.)/g, '$1 ');
}

/** What is wrong with a BIC (ISO 9362) in upper case without spaces, or undefined. */
export function bicProblem(bic: string): string | undefined {
  const stray = /[^A-Z0-9]/.exec(bic);
  if (stray) return `A BIC has only letters and digits: take out the "${stray[0]}".`;
  if (bic.length !== 8 && bic.length !== 11)
    return `A BIC has 8 or 11 characters; this one has ${bic.length}.`;
  if (!/^[A-Z]{4}/.test(bic)) return 'A BIC starts with 4 letters for the bank, like DEUT.';
  if (!/^[A-Z]{2}$/.test(bic.slice(4, 6)))
    return `The 5th and 6th characters of a BIC are the letters of its country, like DE, not "${bic.slice(4, 6)}".`;
  return undefined;
}

export function checkBic(typed: string): Checked {
  const bic = compactCode(typed);
  if (bic === '') return { value: null };
  const problem = bicProblem(bic);
  return problem ? { problem } : { value: bic };
}

/**
 * A BIC of another country than the IBAN's is worth a second look but not a refusal: it is
 * right for an account in Monaco or San Marino held with a French or Italian bank, and the
 * like. A territory counted under its country's IBANs (a Guadeloupe bank, FR IBAN) is no
 * mismatch. Says nothing unless both are well formed.
 */
export function bankCountryWarning(iban: string | null | undefined, bic: string | null | undefined) {
  if (!iban || !bic) return undefined;
  const [account, bank] = [compactCode(iban), compactCode(bic)];
  if (ibanProblem(account) || bicProblem(bank)) return undefined;
  const [ibanCountry, bicCountry] = [account.slice(0, 2), bank.slice(4, 6)];
  if (ibanCountry === bicCountry || IBAN_TERRITORIES[ibanCountry]?.includes(bicCountry)) return undefined;
  return `The BIC is of a bank in ${bicCountry} and the IBAN of an account in ${ibanCountry}: check that they belong together (they can, across a border).`;
}

/**
 * VAT id formats of the EU member states, and XI for Northern Ireland, after the country
 * prefix (EL for Greece), as the European Commission's VIES describes them: lengths and which
 * places are letters or digits, with the adjective and the shape a warning names. No check
 * digit is computed and nothing is looked up online.
 */
const VAT_FORMATS: Record<string, readonly [pattern: RegExp, adjective: string, shape: string]> = {
  AT: [/^U\d{8}$/, 'Austrian', 'ATU followed by 8 digits'],
  BE: [/^[01]\d{9}$/, 'Belgian', 'BE followed by 10 digits, the first 0 or 1'],
  BG: [/^\d{9,10}$/, 'Bulgarian', 'BG followed by 9 or 10 digits'],
  CY: [/^\d{8}[A-Z]$/, 'Cypriot', 'CY followed by 8 digits and a letter'],
  CZ: [/^\d{8,10}$/, 'Czech', 'CZ followed by 8, 9 or 10 digits'],
  DE: [/^\d{9}$/, 'German', 'DE followed by 9 digits'],
  DK: [/^\d{8}$/, 'Danish', 'DK followed by 8 digits'],
  EE: [/^\d{9}$/, 'Estonian', 'EE followed by 9 digits'],
  EL: [/^\d{9}$/, 'Greek', 'EL followed by 9 digits'],
  ES: [
    /^(?=.*[A-Z])[A-Z0-9]\d{7}[A-Z0-9]$/,
    'Spanish',
    'ES followed by 9 characters: 7 digits between a first and a last that are letters or digits, not both digits',
  ],
  FI: [/^\d{8}$/, 'Finnish', 'FI followed by 8 digits'],
  FR: [/^[0-9A-HJ-NP-Z]{2}\d{9}$/, 'French', 'FR followed by 2 letters or digits (not I or O) and 9 digits'],
  HR: [/^\d{11}$/, 'Croatian', 'HR followed by 11 digits'],
  HU: [/^\d{8}$/, 'Hungarian', 'HU followed by 8 digits'],
  IE: [
    /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/,
    'Irish',
    'IE followed by 7 digits and 1 or 2 letters, or the older form like 8Z49289F',
  ],
  IT: [/^\d{11}$/, 'Italian', 'IT followed by 11 digits'],
  LT: [/^(\d{9}|\d{12})$/, 'Lithuanian', 'LT followed by 9 or 12 digits'],
  LU: [/^\d{8}$/, 'Luxembourg', 'LU followed by 8 digits'],
  LV: [/^\d{11}$/, 'Latvian', 'LV followed by 11 digits'],
  MT: [/^\d{8}$/, 'Maltese', 'MT followed by 8 digits'],
  NL: [/^\d{9}B\d{2}$/, 'Dutch', 'NL followed by 9 digits, B and 2 digits'],
  PL: [/^\d{10}$/, 'Polish', 'PL followed by 10 digits'],
  PT: [/^\d{9}$/, 'Portuguese', 'PT followed by 9 digits'],
  RO: [/^[1-9]\d{1,9}$/, 'Romanian', 'RO followed by 2 to 10 digits, the first not 0'],
  SE: [/^\d{10}01$/, 'Swedish', 'SE followed by 12 digits ending in 01'],
  SI: [/^\d{8}$/, 'Slovenian', 'SI followed by 8 digits'],
  SK: [/^\d{10}$/, 'Slovak', 'SK followed by 10 digits'],
  XI: [
    /^(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
    'Northern Ireland',
    'XI followed by 9 or 12 digits, or GD or HA and 3 digits',
  ],
};

/** A VAT id without spaces, dots and hyphens, in upper case: the form VIES compares. */
const compactVatId = (typed: string): string => typed.replace(/[\s.-]+/g, '').toUpperCase();

/** Whether a VAT id has an EU prefix and that country's format. */
function isEuVatId(compact: string): boolean {
  return VAT_FORMATS[compact.slice(0, 2)]?.[0].test(compact.slice(2)) ?? false;
}

/**
 * A VAT id as typed; never refused. The field also holds other countries' tax ids, and some of
 * those begin with letters that are an EU prefix (a Mexican RFC "FRAN800101AB1"), so one with
 * an EU prefix (any case; spaces, dots and hyphens ignored) is kept compact in upper case only
 * when it has that country's format ("DE 123.456.789" is kept as DE123456789). Anything else
 * is kept exactly as typed (trimmed): `vatIdWarning` says when it looks like a mistyped EU one.
 */
export function checkVatId(typed: string): Checked {
  const trimmed = typed.trim();
  if (trimmed === '') return { value: null };
  const compact = compactVatId(trimmed);
  return { value: isEuVatId(compact) ? compact : trimmed };
}

/**
 * A VAT id that starts with an EU prefix but lacks that country's format (or a Greek one
 * written GR) is worth a second look but not a refusal: it may be mistyped, or be no EU VAT id
 * at all. Says what is expected, and that it is saved as typed; nothing for other values.
 */
export function vatIdWarning(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const compact = compactVatId(value);
  const [prefix, rest] = [compact.slice(0, 2), compact.slice(2)];
  if (prefix === 'GR' && /^\d{9}$/.test(rest))
    return `Greek VAT ids start with EL, not GR: EL${rest}. It is saved as typed — change it if it is meant to be a Greek VAT id.`;
  const format = VAT_FORMATS[prefix];
  if (!format || isEuVatId(compact)) return undefined;
  const [, adjective, shape] = format;
  return `This does not look like ${anOf(adjective).replace(/^A/, 'a')} VAT id (${shape}); it is saved as typed — check it if it is meant to be one.`;
}

/**
 * A zod field that checks what the user typed and yields the kept form; blank yields null
 * (the field is cleared). The length bound is the API's, on what was typed.
 */
const typedField = (max: number, check: (typed: string) => Checked) =>
  z
    .string()
    .max(max, { error: `Use at most ${max} characters.` })
    .transform((typed, ctx) => {
      const checked = check(typed);
      if (checked.problem === undefined) return checked.value;
      ctx.issues.push({ code: 'custom', message: checked.problem, input: typed });
      return z.NEVER;
    });

export const IbanInput = typedField(50, checkIban);
export const BicInput = typedField(20, checkBic);
export const VatIdInput = typedField(50, checkVatId);

/**
 * What the app accepts from the user to create or change a supplier: the API's request
 * schemas with the checks above on the IBAN and BIC, and the VAT id in its kept form (never
 * refused: its warning is the caller's to show). The wire schemas stay the API's
 * own (the sandbox checks requests with them, as the API does).
 */
export const SupplierCreateInput = SupplierCreate.extend({
  vatIdNo: VatIdInput.nullable().optional(),
  iban: IbanInput.nullable().optional(),
  bic: BicInput.nullable().optional(),
});
export type SupplierCreateInput = z.input<typeof SupplierCreateInput>;

export const SupplierUpdateInput = SupplierUpdate.extend({
  vatIdNo: VatIdInput.nullable().optional(),
  iban: IbanInput.nullable().optional(),
  bic: BicInput.nullable().optional(),
});
export type SupplierUpdateInput = z.input<typeof SupplierUpdateInput>;
