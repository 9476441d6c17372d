/**
 * The Content-Security-Policy of the app page. The same text stands in src-renderer/index.html
 * (a test keeps the two equal) and is sent as a header for every page the app loads.
 * Scripts only from the app itself; nothing remote, no plugins, no framing.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
