/**
 * `Accept` negotiation, just enough for an API: does the header allow the one media type
 * this answer has? Absent or empty means anything; `q=0` excludes a range.
 */
export function accepts(header: string | undefined, mediaType: string): boolean {
  if (!header || header.trim() === '') return true;
  const [type = '', subtype = ''] = mediaType.toLowerCase().split('/');
  return header.split(',').some((part) => {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) return false;
    const [rangeType, rangeSubtype] = range.trim().split('/');
    if (rangeType === '*' && rangeSubtype === '*') return true;
    return rangeType === type && (rangeSubtype === '*' || rangeSubtype === subtype);
  });
}

/** The media type of a Content-Type header without parameters, lower-case. */
export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
