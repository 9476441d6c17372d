import { z } from 'zod';
import { ExpenseFilters, IsoDate, TransactionFilters } from './search';

/**
 * Expense files: bulk downloads into a folder and the offline file cache (docs/files.md).
 * Shapes shared by the IPC contract, the CLI and the download service.
 */

/* ---------------------------------------------------------------- naming template */

/**
 * The tokens of a naming template. Booking date, counterparty and amount are the bank
 * transaction's the expense documents (the expense's own date and amount when it has none).
 */
export const TEMPLATE_TOKENS = [
  'bookingDate',
  'counterparty',
  'amount',
  'currency',
  'expenseId',
  'originalName',
  'transactionId',
  'fileId',
  'supplier',
  'account',
] as const;
export type TemplateToken = (typeof TEMPLATE_TOKENS)[number];

export const DEFAULT_TEMPLATE = '{bookingDate}_{counterparty}_{amount}_{currency}_{originalName}';

const TOKEN_PATTERN = /\{([^{}]*)\}/g;

/** The tokens a template names, in order; unknown ones included (validation reports them). */
export function templateTokens(template: string): string[] {
  return [...template.matchAll(TOKEN_PATTERN)].map((match) => match[1] ?? '');
}

// What no file name may hold on one system or another: control characters, the characters
// Windows forbids, and the path separators.
// eslint-disable-next-line no-control-regex
const NOT_IN_A_NAME = /[\u0000-\u001f\u007f<>:"/\\|?*]/;

/** Why text typed into a template cannot be part of a file name, or null when it can. */
function unsafeText(literal: string): string | null {
  const found = NOT_IN_A_NAME.exec(literal)?.[0];
  if (found === undefined) return null;
  if (found === '/' || found === '\\')
    return `A file name cannot contain ${found}; the folders come from the layout.`;
  if (found < ' ' || found === '\u007f')
    return 'A file name cannot contain tabs, line breaks or other control characters.';
  return `A file name cannot contain ${found} (Windows does not allow it); use - or _ instead.`;
}

export const NamingTemplate = z
  .string()
  .trim()
  .min(1, 'A naming template cannot be empty.')
  .max(200, 'Keep the naming template under 200 characters.')
  .superRefine((template, ctx) => {
    const unknown = templateTokens(template).filter(
      (token) => !(TEMPLATE_TOKENS as readonly string[]).includes(token),
    );
    if (unknown.length > 0) {
      const token = unknown[0] ?? '';
      const meant = TEMPLATE_TOKENS.find((known) => known.toLowerCase() === token.trim().toLowerCase());
      ctx.addIssue({
        code: 'custom',
        message: meant
          ? `Unknown token {${token}}; did you mean {${meant}}?`
          : `Unknown token {${token}}; use ${TEMPLATE_TOKENS.map((t) => `{${t}}`).join(', ')}.`,
      });
    }
    // Typed text would be changed silently (into _, or dropped) in every name: say so instead.
    const unsafe = unsafeText(template.replace(TOKEN_PATTERN, ''));
    if (unsafe) ctx.addIssue({ code: 'custom', message: unsafe });
    if (templateTokens(template).length === 0)
      ctx.addIssue({ code: 'custom', message: 'Use at least one token, such as {originalName}.' });
    if (/[{}]/.test(template.replace(TOKEN_PATTERN, '')))
      ctx.addIssue({ code: 'custom', message: 'A brace without its pair; write tokens as {name}.' });
  });

export const DownloadLayout = z.enum(['flat', 'month', 'account', 'supplier']);
export type DownloadLayout = z.infer<typeof DownloadLayout>;

/* ---------------------------------------------------------------- scope */

const Ids = z.array(z.string().min(1).max(100)).min(1).max(10_000);

/**
 * Which files a download takes: those of some transactions, expenses or files by id (a
 * selection), of every transaction or expense a search finds, of a date range (booking date,
 * or the expense's date when it has no transaction; both ends included), or all of them.
 */
export const DownloadScope = z.discriminatedUnion('by', [
  z.object({ by: z.literal('ids'), kind: z.enum(['transaction', 'expense', 'file']), ids: Ids }).strict(),
  z.object({ by: z.literal('transactionSearch'), filters: TransactionFilters }).strict(),
  z.object({ by: z.literal('expenseSearch'), filters: ExpenseFilters }).strict(),
  z
    .object({ by: z.literal('dateRange'), from: IsoDate.optional(), to: IsoDate.optional() })
    .strict()
    .refine((range) => !range.from || !range.to || range.from <= range.to, {
      message: 'The start date is after the end date.',
      path: ['from'],
    }),
  z.object({ by: z.literal('all') }).strict(),
]);
export type DownloadScope = z.infer<typeof DownloadScope>;

export const DownloadRequest = z
  .object({
    scope: DownloadScope,
    /** Absolute path of the destination folder; created if missing. */
    destination: z.string().min(1).max(4096),
    template: NamingTemplate.default(DEFAULT_TEMPLATE),
    layout: DownloadLayout.default('flat'),
  })
  .strict();
export type DownloadRequest = z.infer<typeof DownloadRequest>;
export type DownloadRequestInput = z.input<typeof DownloadRequest>;

/* ---------------------------------------------------------------- progress and status */

export const DownloadJobStatus = z.enum(['pending', 'running', 'paused', 'completed', 'cancelled']);
export type DownloadJobStatus = z.infer<typeof DownloadJobStatus>;

const Count = z.number().int().nonnegative();

export const DownloadCounts = z
  .object({
    total: Count,
    done: Count,
    failed: Count,
    pending: Count,
    /** How the done files arrived: over the network, from the offline cache, found in place. */
    fetched: Count,
    copied: Count,
    present: Count,
  })
  .strict();

export const DownloadProgress = z
  .object({
    profileId: z.uuid(),
    jobId: z.uuid(),
    status: DownloadJobStatus,
    files: DownloadCounts,
    bytes: z.object({ total: Count, done: Count }).strict(),
    /** Bytes a second over the last few seconds. */
    bytesPerSecond: Count,
    /** Seconds left, counting the rate limit's waits; null until there is a measure. */
    etaSeconds: Count.nullable(),
    /** Set while the downloader waits for the API's rate-limit window. */
    waitingUntil: z.iso.datetime().nullable(),
  })
  .strict();
export type DownloadProgress = z.infer<typeof DownloadProgress>;

export const DownloadFileError = z
  .object({ fileId: z.string(), relativePath: z.string(), attempts: Count, error: z.string() })
  .strict();

export const DownloadJobShape = z
  .object({
    id: z.uuid(),
    destination: z.string(),
    template: z.string(),
    layout: DownloadLayout,
    status: DownloadJobStatus,
    /** Whether a runner is working on it in this process (a `pending` job without one waits). */
    active: z.boolean(),
    /**
     * Whether another process (a Satchel window or command) runs it now: its controls are that
     * process's, and this one neither resumes nor pauses it.
     */
    elsewhere: z.boolean(),
    files: DownloadCounts,
    bytes: z.object({ total: Count, done: Count }).strict(),
    /** Relative to the destination. */
    manifest: z.string().nullable(),
    errors: z.array(DownloadFileError),
    /**
     * What stopped its last run in this session before its end, when something did (no network,
     * the keychain, credentials refused): why a job the user did not pause is paused or waiting.
     */
    problem: z.string().nullable(),
    /** Whether its destination is still a folder on this computer ("Open folder" needs it). */
    folderExists: z.boolean(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .strict();
export type DownloadJobShape = z.infer<typeof DownloadJobShape>;

/* ---------------------------------------------------------------- offline file cache */

/**
 * What an organisation keeps offline without being asked: nothing, the files of the last
 * `days` days, or everything — never more than `budgetBytes` on disk.
 */
export const OfflineScope = z
  .object({
    mode: z.enum(['none', 'recent', 'all']),
    days: z
      .number({ error: 'Enter the days as a whole number, such as 90.' })
      .int({ error: 'Enter the days as a whole number, such as 90.' })
      .min(1, { error: 'Enter between 1 and 36,600 days.' })
      .max(36_600, { error: 'Enter between 1 and 36,600 days.' })
      .default(90),
    budgetBytes: z
      .number({ error: 'Enter the budget in GB, such as 2 or 0.5.' })
      .int({ error: 'Enter the budget in GB, such as 2 or 0.5.' })
      .min(0, { error: 'The budget cannot be below 0 GB.' })
      .max(2 ** 50, { error: 'The budget can be at most 1,048,576 GB.' })
      .default(2 * 1024 ** 3),
  })
  .strict();
export type OfflineScope = z.infer<typeof OfflineScope>;
export type OfflineScopeInput = z.input<typeof OfflineScope>;

export const OfflineUsage = z
  .object({
    scope: OfflineScope,
    cachedFiles: Count,
    cachedBytes: Count,
    /** Files the scope asks for, and how many of them are on disk. */
    wantedFiles: Count,
    wantedCached: Count,
    /** The fill running now, if any. */
    filling: z.boolean(),
    /**
     * Another process (the command line, another window) fills the cache now: this one's fill
     * does not run beside it, and is not a failure.
     */
    fillingElsewhere: z.boolean(),
    /**
     * How the last fill of this session ended: the files it fetched and could not fetch, and
     * what stopped it before its end (no network, credentials refused), said as the error is.
     */
    lastFill: z
      .object({
        finishedAt: z.string(),
        fetched: Count,
        failed: Count,
        problem: z.string().nullable(),
      })
      .strict()
      .nullable(),
  })
  .strict();
export type OfflineUsage = z.infer<typeof OfflineUsage>;

/** The fill state while another process fills the cache (`fillingElsewhere`). */
export const FILLING_ELSEWHERE_MESSAGE = 'Another Satchel window or command is filling the offline files.';
export type LastFill = NonNullable<OfflineUsage['lastFill']>;

/** A file on disk for preview, served through `url` (the satchel-file: route). */
export const CachedFile = z
  .object({
    fileId: z.string(),
    url: z.string(),
    mimeType: z.string().nullable(),
    size: Count,
    name: z.string().nullable(),
  })
  .strict();
export type CachedFile = z.infer<typeof CachedFile>;
