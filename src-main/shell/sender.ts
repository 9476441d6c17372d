import { isAppNavigation } from './navigation';

/**
 * Whether an IPC message comes from the app's own top-level page. Checked before any payload
 * is looked at, so a frame or page that is not Satchel's cannot reach the core.
 */
export function isTrustedSender(senderUrl: string, isMainFrame: boolean, appUrl: string): boolean {
  return isMainFrame && isAppNavigation(senderUrl, appUrl);
}
