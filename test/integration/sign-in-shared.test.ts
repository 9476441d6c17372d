import { afterEach, describe, expect, it } from 'vitest';
import { BankAccountList } from '../../src-shared/api/bank';
import { SupplierPage } from '../../src-shared/api/suppliers';
import { startSandbox, type Sandbox } from '../../src-sandbox';
import { sandboxClient } from '../helpers/sandbox-sync';

// One sign-in is shared by the requests that need a token at the same time (a sync's page and
// a download's file, say, when the token runs out under both). Cancelling one of them — the
// user stops the sync — must not cancel the sign-in the others are waiting for; it is given
// up only when every request waiting for it has gone.

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const sandbox of sandboxes.splice(0)) await sandbox.stop();
});

async function slowSignIn() {
  const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 20, control: true });
  sandboxes.push(sandbox);
  // The sign-in takes 400 ms: long enough for a second request to join it and the first to go.
  const slow = sandbox.control!.addFault({ match: 'issueToken', latencyMs: 400 });
  const signIns = () => sandbox.control!.faultFired(slow);
  return { client: sandboxClient(sandbox), signIns };
}

// Two operations: requests of one operation wait for its first to learn the rate limit's bucket,
// so only requests of different operations are in the sign-in at the same time.
const accounts = { method: 'GET', path: '/v1/bank-accounts', schema: BankAccountList } as const;
const suppliers = { method: 'GET', path: '/v1/suppliers', schema: SupplierPage } as const;

describe('a sign-in shared by several requests', () => {
  it('goes on for the others when the request that started it is cancelled', async () => {
    const { client, signIns } = await slowSignIn();
    const stop = new AbortController();
    const first = client.request({ ...accounts, signal: stop.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = client.request({ ...suppliers, signal: new AbortController().signal });
    setTimeout(() => stop.abort(), 100);

    await expect(first).rejects.toMatchObject({ code: 'CANCELLED' });
    const answer = await second;
    expect(answer.data.length).toBeGreaterThan(0);
    expect(signIns()).toBe(1); // the second waited for the first one's sign-in, which went on
  });

  it('is given up once every request waiting for it is cancelled', async () => {
    const { client, signIns } = await slowSignIn();
    const stops = [new AbortController(), new AbortController()];
    const waiting = [
      client.request({ ...accounts, signal: stops[0]!.signal }),
      client.request({ ...suppliers, signal: stops[1]!.signal }),
    ];
    setTimeout(() => stops.forEach((stop) => stop.abort()), 100);
    for (const request of waiting) await expect(request).rejects.toMatchObject({ code: 'CANCELLED' });
    // Nothing holds a given-up sign-in: the next request signs in anew and is answered.
    const next = await client.request(accounts);
    expect(next.data.length).toBeGreaterThan(0);
    expect(signIns()).toBe(2);
  });
});
