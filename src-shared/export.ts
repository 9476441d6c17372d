import { z } from 'zod';
import { ExpenseFilters, ExpenseSorting, TransactionFilters, TransactionSorting } from './search';

/** How a CSV separates fields and decimals; left out, both follow the locale. */
/** A locale the platform formats numbers for ("xx-YY" is well formed but nobody's). */
function knownLocale(locale: string): boolean {
  try {
    return Intl.NumberFormat.supportedLocalesOf([locale]).length > 0;
  } catch {
    return false; // not even well formed
  }
}

export const CsvFormatInput = z
  .object({
    /** A BCP 47 locale such as "de-DE"; its decimal separator decides both. Default "en-US". */
    locale: z
      .string()
      .min(2)
      .max(35)
      .refine(knownLocale, 'Not a locale Satchel knows; use one such as de-DE or en-US.')
      .optional(),
    delimiter: z.enum([',', ';', '\t']).optional(),
    decimalSeparator: z.enum(['.', ',']).optional(),
  })
  .strict();
export type CsvFormatInput = z.infer<typeof CsvFormatInput>;

export interface CsvFormat {
  delimiter: ',' | ';' | '\t';
  decimalSeparator: '.' | ',';
}

/** What a file is picked for (`dialog.pickFile`): the core gives the dialog its title and filter. */
export const FilePurpose = z.enum(['transactionsCsv', 'expensesCsv', 'reviewExport', 'reviewImport']);
export type FilePurpose = z.infer<typeof FilePurpose>;

/** A file name the save dialog suggests: a name, never a path. */
export const SuggestedFileName = z
  .string()
  .min(1)
  .max(200)
  .refine((name) => !/[/\\]/.test(name) && name !== '.' && name !== '..', 'A file name, not a path.');

/** An absolute path, chosen by the user; checked again by the main process before writing. */
const FilePath = z.string().min(1).max(4096);

/**
 * The id the export's `export.progress` events carry, made by the caller (a fresh UUID) so that
 * it can follow its own export from the first event; left out, the core makes one. The id of
 * an export still running is refused.
 */
const ExportId = z.uuid();

export const TransactionCsvExport = z
  .object({
    profileId: z.uuid(),
    /** The search whose whole result is exported, in its order; the page is not used. */
    search: z
      .object({
        filters: TransactionFilters.default({}),
        sorting: TransactionSorting.default({ field: 'bookingDate', direction: 'DESC' }),
      })
      .strict(),
    file: FilePath.refine((file) => /\.csv$/i.test(file), 'The file name must end in .csv.'),
    format: CsvFormatInput.default({}),
    overwrite: z.boolean().default(false),
    exportId: ExportId.optional(),
  })
  .strict();

export const ExpenseCsvExport = z
  .object({
    profileId: z.uuid(),
    /** The expense search whose whole result is exported, in its order. */
    search: z
      .object({
        filters: ExpenseFilters.default({}),
        sorting: ExpenseSorting,
      })
      .strict(),
    file: FilePath.refine((file) => /\.csv$/i.test(file), 'The file name must end in .csv.'),
    format: CsvFormatInput.default({}),
    overwrite: z.boolean().default(false),
    exportId: ExportId.optional(),
  })
  .strict();

export const CsvExportResult = z.object({
  file: z.string(),
  rows: z.number().int(),
  bytes: z.number().int(),
});

export const ReviewFileInput = z
  .object({
    profileId: z.uuid(),
    file: FilePath.refine((file) => /\.json$/i.test(file), 'The file name must end in .json.'),
    /**
     * The id `review.cancel` stops the export or import by, made by the caller (a fresh UUID)
     * so that it can stop it from its start; an import's `importId` is this id too. Left out,
     * the core makes one. The id of a review export or import still running is refused.
     */
    workId: z.uuid().optional(),
  })
  .strict();
