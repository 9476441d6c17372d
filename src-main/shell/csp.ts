/**
 * The Content-Security-Policy of the app page. The same text stands in src-renderer/index.html
 * (a test keeps the two equal) and is sent as a header for every page the app loads.
 * Scripts only from the app itself; nothing remote, no plugins, no framing. Cached receipts come
 * from the app's own `satchel-file:` route: as images (`img-src`) and as PDF bytes read by
 * pdf.js (`connect-src`); the pdf.js worker is a bundled file of the app (`worker-src 'self'`).
 */
export const CONTENT_SECURITY_POLICY = [
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
  "frame-ancestors 'none'",
].join('; ');
