/** The page may only ever show the app itself; everything else is refused. */
export function isAppNavigation(targetUrl: string, appUrl: string): boolean {
  try {
    const target = new URL(targetUrl);
    const app = new URL(appUrl);
    if (target.protocol !== app.protocol) return false;
    // A file: URL's origin is opaque, so compare host and path: on Windows file://server/path is
    // a network share, another machine's file at the same path.
    return app.protocol === 'file:'
      ? target.host === app.host && target.pathname === app.pathname
      : target.origin === app.origin;
  } catch {
    return false;
  }
}

/** Links the user may open in the system browser (after confirming): https only, no credentials in the URL. */
export function isAllowedExternalUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}
