import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { testFileUrl, useAppTests } from './harness';
import { loneReceipts, openTransaction } from './receipts';

// A receipt whose connection the server resets before answering, every time, and one the server
// answers with 503 every time: the pane says which after two attempts at most, naming the server
// and never "offline", and its Try again opens the receipt once the faults stop.
const { openConnected } = useAppTests();

describe('a preview whose connection is reset or whose server fails', () => {
  it('says so after two attempts and opens the receipt with Try again once the faults stop', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 80, control: true });
    const [reset, failing] = loneReceipts(sandbox, 2);
    if (!reset || !failing) throw new Error('no receipt to preview');
    const app = await openConnected({ sandbox, fileUrl: testFileUrl, serveFiles: true, timeout: 20_000 });
    const control = sandbox.control!;
    const contentRequests = (fileId = reset.fileId) =>
      control.requests('getFileContent').filter((entry) => entry.path.includes(fileId)).length;
    try {
      control.addFault({ match: `/v1/files/${reset.fileId}/content`, drop: true });
      const pane = await openTransaction(app, reset.id);
      await pane.getByRole('button', { name: `Show preview of ${reset.fileName}` }).click();
      const problem = pane.getByRole('alert');
      const host = new URL(sandbox.url).host;
      await problem
        .getByText(`The connection to ${host} was reset before the server answered; try again.`, {
          exact: true,
        })
        .waitFor();
      expect(contentRequests()).toBe(2);
      expect(await problem.getByText('offline', { exact: false }).count()).toBe(0);

      control.clearFaults();
      await problem.getByRole('button', { name: 'Try again' }).click();
      // Shown (a PDF drawn or an image decoded): its zoom buttons come with it.
      await pane.getByRole('group', { name: `Zoom of ${reset.fileName}` }).waitFor();
      expect(contentRequests()).toBe(3);

      // A server error, said as one: within a few seconds, not after 8–15 s of retries.
      control.addFault({ match: `/v1/files/${failing.fileId}/content`, status: 503 });
      const other = await openTransaction(app, failing.id);
      await other.getByRole('button', { name: `Show preview of ${failing.fileName}` }).click();
      const failed = other.getByRole('alert');
      await failed
        .getByText(`The server at ${host} answered with a server error (503: Injected fault); try again.`, {
          exact: true,
        })
        .waitFor();
      expect(contentRequests(failing.fileId)).toBe(2);
      expect(await failed.getByText('offline', { exact: false }).count()).toBe(0);

      control.clearFaults();
      await failed.getByRole('button', { name: 'Try again' }).click();
      await other.getByRole('group', { name: `Zoom of ${failing.fileName}` }).waitFor();
      expect(contentRequests(failing.fileId)).toBe(3);
    } finally {
      await app.close();
    }
  }, 120_000);
});

describe('a preview whose server takes the connection and says nothing', () => {
  it("says it waited the preview's time, not the client's, and opens the receipt with Try again", async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 80, control: true });
    const [silent] = loneReceipts(sandbox, 1);
    if (!silent) throw new Error('no receipt to preview');
    // The preview waits 1 s for the answer to begin (10 s in the app); the client's own silence
    // time-out stays at its 30 s.
    const app = await openConnected({
      sandbox,
      fileUrl: testFileUrl,
      previewFirstByteMs: 1_000,
      serveFiles: true,
      timeout: 20_000,
    });
    const control = sandbox.control!;
    const contentRequests = () =>
      control.requests('getFileContent').filter((entry) => entry.path.includes(silent.fileId)).length;
    try {
      control.addFault({ match: `/v1/files/${silent.fileId}/content`, latencyMs: 30_000 });
      const pane = await openTransaction(app, silent.id);
      const started = Date.now();
      await pane.getByRole('button', { name: `Show preview of ${silent.fileName}` }).click();
      const problem = pane.getByRole('alert');
      const host = new URL(sandbox.url).host;
      await problem
        .getByText(`The server at ${host} did not answer within 1 s; try again.`, { exact: true })
        .waitFor();
      // Two attempts of the preview's wait: seconds, not the client's minute.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(contentRequests()).toBe(2);
      expect(await problem.getByText('offline', { exact: false }).count()).toBe(0);

      control.clearFaults();
      await problem.getByRole('button', { name: 'Try again' }).click();
      await pane.getByRole('group', { name: `Zoom of ${silent.fileName}` }).waitFor();
      expect(contentRequests()).toBe(3);
    } finally {
      await app.close();
    }
  }, 120_000);
});
