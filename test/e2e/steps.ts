import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Core } from '../../src-main/core';

/**
 * Steps more than one browser test takes the same way, written once so that a change of the
 * UI changes one place.
 */

/**
 * From the transactions grid with a row selected and its pane open: Space marks it reviewed,
 * f flags it "Receipt missing", n writes a note (Ctrl+Enter saves it) — by keyboard only.
 */
export async function reviewFlagAndNoteByKeyboard(page: Page, grid: Locator, pane: Locator): Promise<void> {
  await page.keyboard.press(' ');
  await grid.getByText('✓ Reviewed').waitFor();
  await page.keyboard.press('f');
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.getAttribute('placeholder')))
    .toBe('e.g. Receipt missing');
  await page.keyboard.type('Receipt missing');
  await page.keyboard.press('Enter');
  await pane.getByText('Flagged: Receipt missing').waitFor();
  await grid.focus();
  await page.keyboard.press('n');
  await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
  await page.keyboard.type('Asked the card holder for the hotel invoice.');
  await page.keyboard.press('Control+Enter');
  await pane.getByRole('button', { name: 'Save note' }).and(page.locator(':disabled')).waitFor();
}

/**
 * One supplier edit waits to be sent: it is listed, counted in the status bar, and "Send now"
 * sends none of it while the API cannot be reached (the answer says "0 sent").
 */
export async function sendWaitingEditUnreachable(page: Page, timeoutMs: number): Promise<void> {
  const edits = page.getByTestId('edits');
  await edits.getByText('Waiting to be sent (1)').waitFor();
  await page.getByTestId('pending-edits').getByText('1 edit waiting').waitFor();
  await edits.getByRole('button', { name: 'Send now' }).click();
  await page.getByTestId('push-result').getByText('0 sent', { exact: false }).waitFor({ timeout: timeoutMs });
}

/** Fills the "Connect an organisation" form with `name` and an API key of `api`, and presses Connect. */
export async function fillConnectForm(
  page: Page,
  name: string,
  api: { url: string; clientId: string; clientSecret: string },
): Promise<void> {
  const form = page.getByRole('form', { name: 'Connect an organisation' });
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('API address').fill(api.url);
  await form.getByLabel('API key id').fill(api.clientId);
  await form.getByLabel('API key secret').fill(api.clientSecret);
  await form.getByRole('button', { name: 'Connect' }).click();
}

/** Connects the sandbox as "Sandbox GmbH" and syncs it: where the journeys over synced data start. */
export async function connectSandbox(
  core: Core,
  sandbox: { url: string; clientId: string; clientSecret: string },
): Promise<{ id: string }> {
  const profile = await core.addProfile({
    name: 'Sandbox GmbH',
    baseUrl: sandbox.url,
    auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
  });
  expect((await core.sync.sync(profile.id, { full: false })).outcome).toBe('succeeded');
  return profile;
}

/**
 * Holds back the page's answers to `command` until `release()`: a slow read (a large result,
 * a busy disk) on demand, so that a test can look at the screen while the answer is on its way.
 * The core answers at once; only the answer waits. `waiting()` counts the answers held.
 * With `totalsOnly`, only the searches that ask for the totals are held (a large
 * organisation's count, which takes seconds): the first page of `transactions.search` passes.
 */
export async function holdAnswers(
  page: Page,
  command: string,
  { totalsOnly = false }: { totalsOnly?: boolean } = {},
): Promise<{ waiting(): Promise<number>; release(): Promise<void> }> {
  await page.evaluate(
    ({ held, totals }) => {
      type Invoke = (command: string, input: unknown) => Promise<unknown>;
      const host = window as unknown as { __satchelInvoke: Invoke; __held?: Array<() => void> };
      const invoke = host.__satchelInvoke;
      const answers: Array<() => void> = [];
      host.__held = answers;
      host.__satchelInvoke = (name, input) => {
        const answer = invoke(name, input);
        const search = (input as { search?: { withTotals?: boolean } }).search;
        if (name !== held || (totals && search?.withTotals !== true)) return answer;
        return new Promise((resolve) => answers.push(() => resolve(answer)));
      };
      // Released, later answers pass at once.
      (host as unknown as { __unhold(): void }).__unhold = () => {
        host.__satchelInvoke = invoke;
        for (const resolve of answers.splice(0)) resolve();
      };
    },
    { held: command, totals: totalsOnly },
  );
  return {
    waiting: () => page.evaluate(() => (window as unknown as { __held: unknown[] }).__held.length),
    release: () => page.evaluate(() => (window as unknown as { __unhold(): void }).__unhold()),
  };
}
