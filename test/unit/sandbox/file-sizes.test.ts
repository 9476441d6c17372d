import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { DEFAULT_DATA, createState } from '../../../src-sandbox/data/state';

/** Receipts of a scan's size (`fileKb`): the same pictures and text, carried in valid files. */

const plain = createState({ ...DEFAULT_DATA, transactions: 2000 });
const scanned = createState({ ...DEFAULT_DATA, transactions: 2000, fileKb: 200 });
const some = (mimeType: string) => plain.files.filter((file) => file.mimeType === mimeType).slice(0, 20);

/** A PNG's chunks, each checked against its CRC. */
function pngChunks(bytes: Buffer): Array<{ type: string; start: number; end: number }> {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  const chunks = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    expect(crc32(bytes.subarray(at + 4, at + 8 + length))).toBe(bytes.readUInt32BE(at + 8 + length));
    chunks.push({ type, start: at, end: at + 12 + length });
    at += 12 + length;
  }
  return chunks;
}

async function pdfText(bytes: Buffer): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const document = await pdfjs.getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  expect(document.numPages).toBe(1);
  const content = await (await document.getPage(1)).getTextContent();
  const text = content.items.map((item) => ('str' in item ? item.str : '')).join('\n');
  await document.destroy();
  return text;
}

describe('expense files of a receipt size', () => {
  test('are off by default: files stay as small as they are drawn', () => {
    for (const file of plain.files.slice(0, 200)) expect(plain.fileBytes(file).length).toBeLessThan(2048);
  });

  test('are from half to one and a half times the average, incompressible and the same every time', () => {
    const again = createState({ ...DEFAULT_DATA, transactions: 2000, fileKb: 200 });
    const sizes = scanned.files.slice(0, 200).map((file) => {
      const bytes = scanned.fileBytes(file);
      expect(bytes.length).toBeGreaterThanOrEqual(100 * 1024);
      expect(bytes.length).toBeLessThanOrEqual(300 * 1024 + 2048);
      expect(again.fileBytes(file).equals(bytes)).toBe(true);
      expect(scanned.fileRecord(file).size).toBe(bytes.length);
      return bytes.length;
    });
    const average = sizes.reduce((sum, size) => sum + size, 0) / sizes.length;
    expect(average / 1024).toBeGreaterThan(170);
    expect(average / 1024).toBeLessThan(230);
    const first = scanned.fileBytes(scanned.files[0]!);
    expect(deflateSync(first).length / first.length).toBeGreaterThan(0.99);
  });

  test('a PNG receipt carries the same picture, with the grain in a chunk decoders pass over', () => {
    for (const file of some('image/png')) {
      const bytes = scanned.fileBytes(file);
      const chunks = pngChunks(bytes);
      expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'scAn', 'IEND']);
      // Ancillary (lower-case first letter), private, safe to copy.
      const grain = chunks[2]!;
      const withoutGrain = Buffer.concat([bytes.subarray(0, grain.start), bytes.subarray(grain.end)]);
      expect(withoutGrain.equals(plain.fileBytes(file))).toBe(true);
    }
  });

  test('a PDF invoice reads as the same page, its offsets exact', async () => {
    for (const file of some('application/pdf').slice(0, 5)) {
      const bytes = scanned.fileBytes(file);
      const text = bytes.toString('latin1');
      const xref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)?.[1]);
      expect(text.slice(xref, xref + 4)).toBe('xref');
      const offsets = [...text.slice(xref).matchAll(/^(\d{10}) 00000 n $/gm)].map((match) =>
        Number(match[1]),
      );
      expect(offsets).toHaveLength(6);
      offsets.forEach((offset, i) => expect(text.slice(offset, offset + 8)).toBe(`${i + 1} 0 obj\n`));
      expect(await pdfText(bytes)).toBe(await pdfText(plain.fileBytes(file)));
      expect(await pdfText(bytes)).toContain(file.text[0]);
    }
  });
});
