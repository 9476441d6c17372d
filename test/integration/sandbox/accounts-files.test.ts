import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BankAccountBalance, BankAccountList, ExpenseFilePage } from '../../../src-shared/api';
import { parseMoney } from '../../../src-shared/money';
import { firstError, startApi, type Api } from './helpers';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.sandbox.stop());

async function download(id: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${api.url}/v1/files/${id}/content`, {
    headers: { authorization: `Bearer ${await api.token()}`, ...headers },
  });
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}
const files = () => api.sandbox.state.files;

describe('bank accounts', () => {
  test('list is not paginated: { data } with wallets in EUR, USD and GBP', async () => {
    const response = await api.call('GET', '/v1/bank-accounts');
    const list = BankAccountList.parse(response.body);
    expect(response.body.meta).toBeUndefined();
    expect(new Set(list.data.map((a) => a.currency))).toEqual(new Set(['EUR', 'USD', 'GBP']));
  });

  test('balance of an account is a Money in its currency', async () => {
    const account = api.sandbox.state.reference.wallets[2]!;
    const balance = BankAccountBalance.parse(
      (await api.call('GET', `/v1/bank-accounts/${account.id}/balance`)).body,
    );
    expect(balance.bankAccountId).toBe(account.id);
    expect(balance.balance.currency).toBe('USD');
    expect(() => parseMoney(balance.availableBalance)).not.toThrow();
  });

  test('balance of an unknown account is 404', async () => {
    expect(
      (await api.call('GET', '/v1/bank-accounts/11111111-2222-4333-8444-555555555555/balance')).status,
    ).toBe(404);
  });
});

describe('expense files', () => {
  test("search by expenseIds returns that expense's files with size and sha256", async () => {
    const spec = files()[0]!;
    const page = ExpenseFilePage.parse(
      (await api.call('POST', '/v1/files/search-query', { body: { expenseIds: [spec.expenseId] } })).body,
    );
    expect(page.data.map((f) => f.id)).toContain(spec.id);
    expect(
      page.data.every((f) => f.expenseId === spec.expenseId && f.size > 0 && /^[0-9a-f]{64}$/.test(f.sha256)),
    ).toBe(true);
  });

  test("search by expenseLineIds returns the line's files", async () => {
    const spec = files().find((f) => f.expenseLineId)!;
    const page = ExpenseFilePage.parse(
      (await api.call('POST', '/v1/files/search-query', { body: { expenseLineIds: [spec.expenseLineId] } }))
        .body,
    );
    expect(page.data.map((f) => f.id)).toEqual([spec.id]);
  });

  test("a REIMBURSEMENT_INVOICE_LINE_SPLIT line id resolves to its parent line's files", async () => {
    const expense = api.sandbox.state.expenses.find((e) =>
      e.lines.some((l) => l.type === 'REIMBURSEMENT_INVOICE_LINE_SPLIT'),
    )!;
    const split = expense.lines.find((l) => l.type === 'REIMBURSEMENT_INVOICE_LINE_SPLIT')!;
    const parent = expense.lines.find((l) => l.id === split.parentLineId)!;
    expect(parent.type).toBe('REIMBURSEMENT_INVOICE_LINE');
    const page = ExpenseFilePage.parse(
      (await api.call('POST', '/v1/files/search-query', { body: { expenseLineIds: [split.id] } })).body,
    );
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data.every((f) => f.expenseLineId === parent.id)).toBe(true);
  });

  test('filters combine with AND; no filter lists all files paginated', async () => {
    const spec = files()[1]!;
    const other = files().find((f) => f.expenseId !== spec.expenseId)!;
    const none = (
      await api.call('POST', '/v1/files/search-query', {
        body: { expenseIds: [spec.expenseId], expenseLineIds: [other.expenseLineId] },
      })
    ).body;
    expect(none.meta.pagination.totalItems).toBe(0);
    const everything = (await api.call('POST', '/v1/files/search-query', { body: {} })).body;
    expect(everything.meta.pagination.totalItems).toBe(files().length);
    expect(everything.data).toHaveLength(20);
  });

  test('content has Content-Type, Content-Length, ETag and matches size and sha256', async () => {
    const spec = files().find((f) => f.mimeType === 'image/png')!;
    const record = api.sandbox.state.fileRecord(spec);
    const { response, bytes } = await download(spec.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Number(response.headers.get('content-length'))).toBe(record.size);
    expect(response.headers.get('etag')).toBe(`"${record.sha256}"`);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(record.sha256);
  });

  test('files are valid PNGs and PDFs', async () => {
    const png = await download(files().find((f) => f.mimeType === 'image/png')!.id);
    expect(png.bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.bytes.subarray(png.bytes.length - 8, png.bytes.length - 4).toString('latin1')).toBe('IEND');
    const pdf = await download(files().find((f) => f.mimeType === 'application/pdf')!.id);
    const text = pdf.bytes.toString('latin1');
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    const xref = Number(/startxref\n(\d+)/.exec(text)![1]);
    expect(text.slice(xref, xref + 4)).toBe('xref');
  });

  test('Range bytes=0-9 answers 206 with Content-Range', async () => {
    const spec = files()[0]!;
    const size = api.sandbox.state.fileRecord(spec).size;
    const { response, bytes } = await download(spec.id, { range: 'bytes=0-9' });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes 0-9/${size}`);
    expect(bytes).toEqual(api.sandbox.state.fileBytes(spec).subarray(0, 10));
  });

  test('open-ended and suffix ranges resume a download', async () => {
    const spec = files()[0]!;
    const full = api.sandbox.state.fileBytes(spec);
    expect((await download(spec.id, { range: 'bytes=100-' })).bytes).toEqual(full.subarray(100));
    expect((await download(spec.id, { range: 'bytes=-50' })).bytes).toEqual(full.subarray(full.length - 50));
  });

  test('Accept-Ranges: bytes and a Content-Disposition naming the file come with the content', async () => {
    const spec = files()[0]!;
    const { response } = await download(spec.id);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${spec.name}"`);
  });

  test('a range whose end lies past the file is cut at the last byte', async () => {
    const spec = files()[0]!;
    const full = api.sandbox.state.fileBytes(spec);
    const { response, bytes } = await download(spec.id, { range: `bytes=10-${full.length + 1000}` });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes 10-${full.length - 1}/${full.length}`);
    expect(Number(response.headers.get('content-length'))).toBe(full.length - 10);
    expect(bytes).toEqual(full.subarray(10));
  });

  test('several ranges, an invalid range or another unit get the whole file (200)', async () => {
    const spec = files()[0]!;
    const full = api.sandbox.state.fileBytes(spec);
    for (const range of ['bytes=0-1,4-5', 'bytes=9-3', 'bytes=-', 'bytes=a-b', 'items=0-9']) {
      const { response, bytes } = await download(spec.id, { range });
      expect(response.status, range).toBe(200);
      expect(response.headers.get('content-range'), range).toBeNull();
      expect(bytes, range).toEqual(full);
    }
  });

  test('If-Range with the strong ETag resumes (206); a stale or weak one gets the whole file', async () => {
    const spec = files()[0]!;
    const full = api.sandbox.state.fileBytes(spec);
    const sha = api.sandbox.state.fileRecord(spec).sha256;
    const resumed = await download(spec.id, { range: 'bytes=100-', 'if-range': `"${sha}"` });
    expect(resumed.response.status).toBe(206);
    expect(resumed.bytes).toEqual(full.subarray(100));
    // RFC 9110 §13.1.5: If-Range compares strongly, and a date cannot match a file without Last-Modified.
    for (const ifRange of [`"${'0'.repeat(64)}"`, `W/"${sha}"`, 'Thu, 01 Jan 2026 00:00:00 GMT']) {
      const { response, bytes } = await download(spec.id, { range: 'bytes=100-', 'if-range': ifRange });
      expect(response.status, ifRange).toBe(200);
      expect(bytes, ifRange).toEqual(full);
    }
  });

  test('a zero-length suffix range is 416', async () => {
    const spec = files()[0]!;
    const size = api.sandbox.state.fileRecord(spec).size;
    const { response } = await download(spec.id, { range: 'bytes=-0' });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe(`bytes */${size}`);
  });

  test('a range past the end is 416 with Content-Range bytes */size', async () => {
    const spec = files()[0]!;
    const size = api.sandbox.state.fileRecord(spec).size;
    const { response, bytes } = await download(spec.id, { range: `bytes=${size}-` });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe(`bytes */${size}`);
    expect(firstError(JSON.parse(bytes.toString())).code).toBe('RANGE_NOT_SATISFIABLE');
  });

  test('a 416 is an error answer, not the file: JSON body, no ETag, disposition or Accept-Ranges', async () => {
    const spec = files()[0]!;
    const size = api.sandbox.state.fileRecord(spec).size;
    const { response, bytes } = await download(spec.id, { range: `bytes=${size + 10}-` });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe(`bytes */${size}`);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBeNull();
    expect(response.headers.get('etag')).toBeNull();
    expect(response.headers.get('accept-ranges')).toBeNull();
    expect(firstError(JSON.parse(bytes.toString()))).toMatchObject({ code: 'RANGE_NOT_SATISFIABLE' });
  });

  test('If-None-Match with the ETag is 304', async () => {
    const spec = files()[0]!;
    const etag = `"${api.sandbox.state.fileRecord(spec).sha256}"`;
    expect((await download(spec.id, { 'if-none-match': etag })).response.status).toBe(304);
  });

  test('If-None-Match compares weakly over a list, and * matches', async () => {
    const spec = files()[0]!;
    const sha = api.sandbox.state.fileRecord(spec).sha256;
    for (const header of [`W/"${sha}"`, `"a", "${sha}"`, `"a",W/"${sha}"`, '*']) {
      const { response, bytes } = await download(spec.id, { 'if-none-match': header });
      expect(response.status, header).toBe(304);
      expect(bytes.length, header).toBe(0);
      expect(response.headers.get('etag'), header).toBe(`"${sha}"`);
    }
    for (const header of ['"a", W/"b"', sha, `"${sha.slice(1)}"`]) {
      expect((await download(spec.id, { 'if-none-match': header })).response.status, header).toBe(200);
    }
  });

  test('an Accept excluding the file type is 406', async () => {
    const spec = files().find((f) => f.mimeType === 'application/pdf')!;
    expect((await download(spec.id, { accept: 'image/*' })).response.status).toBe(406);
  });

  test("a q=0 on the file's own type is not undone by a wildcard", async () => {
    const spec = files().find((f) => f.mimeType === 'application/pdf')!;
    const status = async (accept: string) => (await download(spec.id, { accept })).response.status;
    expect(await status('application/pdf;q=0, */*')).toBe(406);
    expect(await status('application/pdf;q=0, application/*')).toBe(406);
    expect(await status('application/*;q=0, application/pdf')).toBe(200);
  });

  test('unknown file is 404', async () => {
    expect((await download('11111111-2222-4333-8444-555555555555')).response.status).toBe(404);
  });
});
