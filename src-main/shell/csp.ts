/**
 * The Content-Security-Policy of the app page, sent as a header for every page the app loads.
 * Scripts only from the app itself; nothing remote, no plugins, no framing. Cached receipts come
 * from the app's own `satchel-file:` route: as images (`img-src`) and as PDF bytes read by
 * pdf.js (`connect-src`); the pdf.js worker is a bundled file of the app (`worker-src 'self'`).
 */
const PAGE_DIRECTIVES = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: satchel-file:",
  "font-src 'self'",
  "connect-src 'self' satchel-file:",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
];

/**
 * Directives a browser takes only from a header: in a <meta> tag it ignores them and says so on
 * the console at every load.
 */
const HEADER_ONLY_DIRECTIVES = ["frame-ancestors 'none'"];

/** The header's policy. */
export const CONTENT_SECURITY_POLICY = [...PAGE_DIRECTIVES, ...HEADER_ONLY_DIRECTIVES].join('; ');

/**
 * The same policy less what only a header can carry, as it stands in the meta tag of
 * src-renderer/index.html (a test keeps the two equal): the page is held to it even where no
 * header is sent.
 */
export const META_CONTENT_SECURITY_POLICY = PAGE_DIRECTIVES.join('; ');
