import { z } from 'zod';

/**
 * Faults injected per route for tests of a client's resilience: latency, 5xx answers,
 * dropped connections (before or after the operation ran), forced 429s, and bodies (files,
 * JSON answers) cut short, corrupted or slow. A rule matches an operation id (`listSuppliers`), a
 * path prefix (`/v1/suppliers`) or `*`; it applies to the next `times` matching requests
 * (all of them when omitted), after skipping `skip`.
 */

export const FaultRule = z.strictObject({
  match: z.string().min(1),
  method: z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']).optional(),
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  /** Answer with this status (500, 502, 503, 504) and the standard error body. */
  status: z.number().int().min(500).max(599).optional(),
  /**
   * With `status`: the error's message quotes the request back, its headers (Authorization
   * included) and its body (a token request's client secret included), as a careless gateway or
   * a debugging proxy does. For tests that a client never passes such a message on.
   */
  echoRequest: z.boolean().optional(),
  /** Destroy the connection without answering. */
  drop: z.boolean().optional(),
  /**
   * Run the operation, then destroy the connection instead of sending its answer: a write
   * that happened although the client saw only a network error.
   */
  dropAfterHandling: z.boolean().optional(),
  /**
   * Send the headers of the whole answer (its full Content-Length), then this many bytes of
   * the body, then destroy the connection — a download or a list page cut off midway. File
   * content and JSON answers alike; an error answer is sent whole.
   */
  truncateBodyAt: z.number().int().min(0).optional(),
  /**
   * The body in ten pieces, the first at once and then one every tenth of this many
   * milliseconds — a slow line on which bytes keep arriving. File content and JSON answers.
   */
  slowBodyMs: z.number().int().min(1).max(600_000).optional(),
  /**
   * With `slowBodyMs`: the body in this many pieces instead of ten, one every this-many-th of
   * `slowBodyMs` — fewer, longer gaps, each still followed by bytes.
   */
  slowBodyPieces: z.number().int().min(2).max(1000).optional(),
  /**
   * The whole body with one byte flipped (right length: a file's sha256 does not match, a JSON
   * answer may not parse). File content and JSON answers.
   */
  corruptBody: z.boolean().optional(),
  /**
   * Lists only: the answer's `data` without its `meta` (no page count, no `hasMore`), as a
   * server that does not follow the envelope sends it.
   */
  omitListMeta: z.boolean().optional(),
  /** Answer 429 as if the bucket were empty. */
  rateLimit: z.boolean().optional(),
  retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
  times: z.number().int().min(1).optional(),
  skip: z.number().int().min(0).optional(),
});
export type FaultRule = z.infer<typeof FaultRule>;

export interface Faults {
  add(rule: FaultRule): string;
  clear(): void;
  list(): (FaultRule & { id: string })[];
  /** How many requests the rule has hit so far (0 for an unknown id). */
  fired(id: string): number;
  /** The rules that fire for this request (consuming their counts), in order of addition. */
  take(operationId: string | undefined, method: string, path: string): FaultRule[];
}

export function createFaults(): Faults {
  let next = 1;
  const rules: (FaultRule & { id: string; seen: number; fired: number })[] = [];
  return {
    add(rule) {
      const id = `fault-${next++}`;
      rules.push({ ...rule, id, seen: 0, fired: 0 });
      return id;
    },
    clear() {
      rules.length = 0;
    },
    list: () => rules.map(({ seen: _seen, fired: _fired, ...rule }) => rule),
    fired: (id) => rules.find((rule) => rule.id === id)?.fired ?? 0,
    take(operationId, method, path) {
      const fired: FaultRule[] = [];
      for (const rule of rules) {
        const matches =
          rule.match === '*' ||
          rule.match === operationId ||
          (rule.match.startsWith('/') && path.startsWith(rule.match));
        if (!matches || (rule.method && rule.method !== method)) continue;
        rule.seen++;
        if (rule.seen <= (rule.skip ?? 0)) continue;
        if (rule.times !== undefined && rule.fired >= rule.times) continue;
        rule.fired++;
        fired.push(rule);
      }
      return fired;
    },
  };
}
