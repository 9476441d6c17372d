import { isAllowedExternalUrl } from './navigation';

/**
 * Links that leave the app: only `https:` (no credentials in the URL), only in the system
 * browser, and only after the user confirmed. The dialog names the real host (an
 * internationalised name shows as its punycode), so a look-alike address cannot hide.
 */

export interface ConfirmDialog {
  type: 'question';
  title: string;
  message: string;
  detail: string;
  buttons: [string, string];
  defaultId: number;
  cancelId: number;
  noLink: true;
}

export type ExternalLinkDecision = { open: false } | { open: true; url: string; confirm: ConfirmDialog };

export const OPEN_BUTTON = 0;
const CANCEL_BUTTON = 1;

export function externalLinkDecision(url: string): ExternalLinkDecision {
  if (!isAllowedExternalUrl(url)) return { open: false };
  const parsed = new URL(url);
  return {
    open: true,
    url: parsed.href,
    confirm: {
      type: 'question',
      title: 'Open in your browser?',
      message: `Open a page on ${parsed.hostname} in your web browser?`,
      detail: parsed.href,
      buttons: ['Open in Browser', 'Cancel'],
      defaultId: CANCEL_BUTTON,
      cancelId: CANCEL_BUTTON,
      noLink: true,
    },
  };
}

/** Whether the answer of the confirmation dialog was "open". */
export const confirmed = (response: number): boolean => response === OPEN_BUTTON;
