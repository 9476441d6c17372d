import { z } from 'zod';
import { RecordKind, Tag } from '../../src-shared/search';

/**
 * The review export file, version 1 (docs/search-and-review.md shows an example):
 *
 *   { "format": "satchel-review", "version": 1, "exportedAt": "…", "organisationId": "…" | null,
 *     "marks": [ { "kind": "transaction", "id": "<API record id>",
 *                  "reviewed": { "at": "…" | null, "changedAt": "…" },
 *                  "flag": { "flagged": true, "reason": "…", "changedAt": "…" },
 *                  "note": { "text": "…" | null, "changedAt": "…" },
 *                  "tags": { "values": ["…"], "changedAt": "…" } } ] }
 *
 * Records are named by the spend API's own ids, which are the same in every cache of the
 * organisation, whoever synced it and under whatever profile: never local row numbers.
 * A facet is present once it was ever set; a cleared facet (at/text null, flagged false,
 * no tags) is kept with its changedAt so the clearing travels too. Timestamps are ISO 8601;
 * they are normalised to UTC with milliseconds on reading, so they compare as text.
 */

export const REVIEW_FORMAT = 'satchel-review';
export const REVIEW_FORMAT_VERSION = 1;

const Stamp = z.iso
  .datetime({ offset: true, message: 'Use an ISO 8601 time like 2026-03-31T09:30:00.000Z.' })
  .transform((value) => new Date(value).toISOString());

export const ExportedMark = z
  .object({
    kind: RecordKind,
    id: z.string().min(1).max(200),
    reviewed: z.object({ at: Stamp.nullable(), changedAt: Stamp }).strict().optional(),
    flag: z
      .object({ flagged: z.boolean(), reason: z.string().max(500).nullable(), changedAt: Stamp })
      .strict()
      .refine((flag) => !flag.flagged || (flag.reason ?? '').trim() !== '', {
        message: 'A flagged record needs a reason.',
        path: ['reason'],
      })
      .optional(),
    note: z
      .object({ text: z.string().max(10_000).nullable(), changedAt: Stamp })
      .strict()
      .optional(),
    tags: z
      .object({ values: z.array(Tag).max(100), changedAt: Stamp })
      .strict()
      .optional(),
  })
  .strict();
export type ExportedMark = z.infer<typeof ExportedMark>;

/** Everything of the file but its marks; `marks` last, as problems are named in this order. */
const FILE_FIELDS = {
  format: z.literal(REVIEW_FORMAT),
  version: z.literal(REVIEW_FORMAT_VERSION),
  exportedAt: Stamp,
  organisationId: z.string().nullable(),
};

export const ReviewFile = z
  .object({ ...FILE_FIELDS, marks: z.array(ExportedMark) })
  .strict()
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.marks.forEach((mark, index) => {
      const key = `${mark.kind}:${mark.id}`;
      if (seen.has(key))
        ctx.addIssue({
          code: 'custom',
          message: `${mark.kind} ${mark.id} appears twice.`,
          path: ['marks', index, 'id'],
        });
      seen.add(key);
    });
  });
export type ReviewFile = z.infer<typeof ReviewFile>;

/**
 * The file with its marks not looked into: what the import checks at once, before it checks
 * the marks a slice at a time (check.ts). Whole, that check says what ReviewFile says.
 */
export const ReviewFileShell = z.object({ ...FILE_FIELDS, marks: z.array(z.unknown()) }).strict();

/** Just enough to tell "not a review file" and "a newer version" from "a damaged one". */
export const ReviewFileHeader = z.object({ format: z.string(), version: z.number() }).loose();
