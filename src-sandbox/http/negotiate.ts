/**
 * `Accept` negotiation, just enough for an API: does the header allow the one media type
 * this answer has? Absent or empty means anything. The most specific range that matches the
 * type decides (RFC 9110 §12.5.1: `type/subtype` over `type/*` over `*\/*`), so
 * `application/json;q=0, *\/*` excludes JSON. A header with no range for the type excludes it.
 */
export function accepts(header: string | undefined, mediaType: string): boolean {
  if (!header || header.trim() === '') return true;
  const [type = '', subtype = ''] = mediaType.toLowerCase().split('/');
  let best = -1;
  let allowed = false;
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const [rangeType = '', rangeSubtype = ''] = range.trim().split('/');
    const specificity =
      rangeType === type && rangeSubtype === subtype
        ? 2
        : rangeType === type && rangeSubtype === '*'
          ? 1
          : rangeType === '*' && rangeSubtype === '*'
            ? 0
            : -1;
    if (specificity < 0 || specificity < best) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const ok = q === undefined || Number(q.slice(2)) !== 0;
    // Among equally specific ranges, one that allows the type is enough.
    allowed = specificity > best ? ok : allowed || ok;
    best = specificity;
  }
  return allowed;
}

/** The media type of a Content-Type header without parameters, lower-case. */
export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
