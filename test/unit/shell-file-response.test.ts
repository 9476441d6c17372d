import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE_SCHEME } from '../../src-main/shell/file-route';
import {
  answerFileRequest,
  appOriginOf,
  fileAnswer,
  FILE_SCHEME_PRIVILEGES,
  PREVIEW_CONTENT_TYPES,
} from '../../src-main/shell/file-response';
import { useTempDirs } from '../helpers/temp-dir';

const orgA = '11111111-2222-4333-8444-555555555555';
const orgB = '99999999-8888-4777-8666-555555555555';
const file = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const appOrigin = 'null';
const tempDir = useTempDirs();

function optionsAt(root: string) {
  return {
    appOrigin,
    filesRoot: (profileId: string) => path.join(root, profileId),
    allowed: (profileId: string) => profileId === orgA,
  };
}
const options = optionsAt(path.resolve('/data/files'));
const get = (url: string, origin: string | null = null) => ({ url, method: 'GET', origin });

describe('satchel-file answers', () => {
  it('registers the scheme as a standard, secure, fetchable, streamable scheme', () => {
    expect(FILE_SCHEME).toBe('satchel-file');
    expect(FILE_SCHEME_PRIVILEGES).toEqual({
      standard: true,
      secure: true,
      supportFetchAPI: true,
      stream: true,
      corsEnabled: true,
    });
    expect(FILE_SCHEME_PRIVILEGES).not.toHaveProperty('bypassCSP');
  });

  it.each([
    ['pdf', 'application/pdf'],
    ['png', 'image/png'],
    ['jpg', 'image/jpeg'],
    ['webp', 'image/webp'],
  ])('serves a cached .%s as %s, never sniffed, never cached, inert on its own', (extension, type) => {
    const answer = fileAnswer(get(`satchel-file://${orgA}/${file}.${extension}`), options);
    expect(answer).toEqual({
      status: 200,
      path: path.join('/data/files', orgA, `${file}.${extension}`),
      headers: {
        'Content-Type': type,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'Referrer-Policy': 'no-referrer',
      },
    });
  });

  it('refuses types outside the fixed map, whatever the URL claims', () => {
    for (const extension of ['html', 'svg', 'js', 'xml', 'txt', 'bin', 'heic', 'valueof', 'tostring']) {
      expect(
        fileAnswer(get(`satchel-file://${orgA}/${file}.${extension}`), options),
        extension,
      ).toMatchObject({
        status: 415,
        path: null,
      });
    }
    expect(Object.keys(PREVIEW_CONTENT_TYPES).sort()).toEqual(['gif', 'jpeg', 'jpg', 'pdf', 'png', 'webp']);
  });

  it('answers refusals of the route with their status and no file', () => {
    expect(fileAnswer(get(`satchel-file://${orgB}/${file}.pdf`), options)).toMatchObject({
      status: 403,
      path: null,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' },
    });
    for (const url of [
      `satchel-file://${orgA}/../${orgB}/${file}.pdf`,
      `satchel-file://${orgA}/%2e%2e/${orgB}/${file}.pdf`,
      `satchel-file://${orgA}/${file}.pdf?download=1`,
      `https://example.com/${orgA}/${file}.pdf`,
    ])
      expect(fileAnswer(get(url), options), url).toMatchObject({ status: 400, path: null });
  });

  it('lets only the app page read a file by fetch, and says so to the browser', () => {
    const url = `satchel-file://${orgA}/${file}.pdf`;
    expect(fileAnswer(get(url, 'null'), options)).toMatchObject({
      status: 200,
      headers: { 'Access-Control-Allow-Origin': 'null', Vary: 'Origin' },
    });
    expect(fileAnswer(get(url, 'https://evil.example'), options)).toMatchObject({ status: 403, path: null });
    expect(fileAnswer(get(url, 'http://localhost:5173'), options)).toMatchObject({ status: 403 });
    expect(
      fileAnswer(get(url, 'http://localhost:5173'), { ...options, appOrigin: 'http://localhost:5173' }),
    ).toMatchObject({ status: 200, headers: { 'Access-Control-Allow-Origin': 'http://localhost:5173' } });
    // An <img> load sends no Origin: no CORS header is given.
    expect(fileAnswer(get(url), options).headers).not.toHaveProperty('Access-Control-Allow-Origin');
  });

  it('answers only GET and HEAD', () => {
    const url = `satchel-file://${orgA}/${file}.png`;
    expect(fileAnswer({ url, method: 'HEAD', origin: null }, options)).toMatchObject({
      status: 200,
      path: null,
    });
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS'])
      expect(fileAnswer({ url, method, origin: null }, options), method).toMatchObject({ status: 405 });
  });

  it('knows the app page’s origin: "null" for the packaged file: page, the dev server’s otherwise', () => {
    expect(appOriginOf('file:///opt/Satchel/resources/app.asar/out/renderer/index.html')).toBe('null');
    expect(appOriginOf('http://localhost:5173/')).toBe('http://localhost:5173');
  });

  it('reads the file from the organisation’s cache folder, and 404s a file not cached', async () => {
    const root = tempDir();
    mkdirSync(path.join(root, orgA));
    const bytes = Buffer.from('%PDF-1.4\n%%EOF\n', 'latin1');
    writeFileSync(path.join(root, orgA, `${file}.pdf`), bytes);
    const reply = await answerFileRequest(get(`satchel-file://${orgA}/${file}.pdf`), optionsAt(root));
    expect(reply.status).toBe(200);
    expect(reply.headers['Content-Type']).toBe('application/pdf');
    expect(reply.headers['Content-Length']).toBe(String(bytes.length));
    expect(Buffer.from(reply.body ?? new Uint8Array())).toEqual(bytes);

    const missing = await answerFileRequest(get(`satchel-file://${orgA}/${file}.png`), optionsAt(root));
    expect(missing).toMatchObject({ status: 404, body: null });
    const refused = await answerFileRequest(get(`satchel-file://${orgB}/${file}.pdf`), optionsAt(root));
    expect(refused).toMatchObject({ status: 403, body: null });
  });

  it('serves no link out of the cache folder, nor anything but a plain file', async () => {
    const root = tempDir();
    mkdirSync(path.join(root, orgA));
    const outside = path.join(tempDir(), 'ledger.pdf');
    writeFileSync(outside, '%PDF-1.4\nsecret\n%%EOF\n');
    symlinkSync(outside, path.join(root, orgA, `${file}.pdf`));
    const linked = await answerFileRequest(get(`satchel-file://${orgA}/${file}.pdf`), optionsAt(root));
    expect(linked).toMatchObject({ status: 404, body: null });
    mkdirSync(path.join(root, orgA, `${file}.png`));
    const folder = await answerFileRequest(get(`satchel-file://${orgA}/${file}.png`), optionsAt(root));
    expect(folder).toMatchObject({ status: 404, body: null });
  });
});
