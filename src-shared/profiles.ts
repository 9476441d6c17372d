import { z } from 'zod';

/** A connection to one organisation, as the renderer may see it: nothing secret. */
export const ProfileSummary = z.object({
  id: z.uuid(),
  name: z.string().min(1),
  baseUrl: z.string(),
  authKind: z.enum(['client', 'token']),
  clientId: z.string().optional(),
  demo: z.boolean(),
  createdAt: z.string(),
});
export type ProfileSummary = z.infer<typeof ProfileSummary>;

/** Credentials as typed by the user; they go straight to the keychain and never come back. */
export const ProfileAuth = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('client'),
    clientId: z.string().trim().min(1, 'Enter the API key id.').max(200),
    clientSecret: z.string().min(1, 'Enter the API key secret.').max(4096),
  }),
  z.object({ kind: z.literal('token'), accessToken: z.string().min(1, 'Enter the access token.').max(8192) }),
]);
export type ProfileAuth = z.infer<typeof ProfileAuth>;

export const ProfileName = z
  .string()
  .trim()
  .min(1, 'Enter a name.')
  .max(80, 'Keep the name under 80 characters.');

export const BaseUrl = z
  .string()
  .trim()
  .max(2048)
  // A user name or password in the address would be kept in profiles.json, shown in the window
  // and printed by the command line: credentials go only to the keychain, from their own fields.
  .refine(
    (value) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value),
    'Enter the address without a user name or password; the API key goes in its own fields.',
  )
  .regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i, 'Enter an http(s) address, such as https://api.example.com.')
  .transform((value) => value.replace(/\/+$/, ''));

/**
 * What Settings and the CLI say when the API gave no answer to check new credentials with
 * (offline, a time-out): they are kept all the same, and a sync checks them.
 */
export const UNCHECKED_KEY =
  'Saved. It could not be checked now (no connection); the next sync will check it.';
export const UNCHECKED_CONNECTION =
  'Added. It could not be checked now (no connection); the first sync will check it.';

/**
 * An organisation "Recover organisations" can list again from its offline copy, which records
 * its connection (nothing secret): the keychain entry under its id is reused when there is one
 * (`keyFound`; null when no keychain answered), and the unsent edits and review marks the copy
 * holds stay in it.
 */
export const RecoverableOrganisation = ProfileSummary.extend({
  /** The offline copy's file name in the caches folder. */
  file: z.string(),
  keyFound: z.boolean().nullable(),
  edits: z.number().int().nonnegative(),
  marks: z.number().int().nonnegative(),
});
export type RecoverableOrganisation = z.infer<typeof RecoverableOrganisation>;

/** What recovering a damaged list of organisations would do (docs/screens.md). */
export const RecoveryPlan = z.object({
  /** The damaged list, set aside beside itself under a new name. */
  listFile: z.string(),
  /** The folder of the offline copies, which stay where they are. */
  cachesFolder: z.string(),
  organisations: z.array(RecoverableOrganisation),
  /** Files of the caches folder that cannot be tied to a connection: listed, left as they are. */
  untied: z.array(z.string()),
  /** Why the keychain could not be asked whose keys it holds; null when it answered. */
  keychainProblem: z.string().nullable(),
});
export type RecoveryPlan = z.infer<typeof RecoveryPlan>;

export const RecoveryResult = RecoveryPlan.extend({
  /** Where the damaged list went: its full path. */
  setAside: z.string(),
});
export type RecoveryResult = z.infer<typeof RecoveryResult>;
