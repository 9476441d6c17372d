import { createCipheriv } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { hash32 } from './random';

/**
 * Small but valid expense files, made on demand from a seed and a few lines of text:
 * PNG receipts (a drawn "slip" with a coloured header and text bars) and one-page PDFs with
 * real text. Same inputs, same bytes.
 *
 * Either can carry `grain`: bytes of a scan or a photo's size and entropy that every viewer
 * passes over (a private ancillary PNG chunk, an unreferenced PDF stream), so that a download
 * can be measured on files of a receipt's real size without changing what they show.
 */

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const body = Buffer.concat([head.subarray(4), data]);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([head.subarray(0, 4), body, tail]);
}

/** A receipt-like RGB image: paper, a header band in a colour from the seed, and grey text bars. */
export function makePng(seed: number, lines: number, grain?: Buffer): Buffer {
  const width = 120;
  const height = 40 + lines * 14 + 30;
  const raw = Buffer.alloc((width * 3 + 1) * height, 0xff);
  const header = [hash32(seed, 1) & 0x7f, hash32(seed, 2) & 0x7f, 0x80 + (hash32(seed, 3) & 0x7f)];
  const paint = (x0: number, y0: number, w: number, h: number, rgb: number[]): void => {
    for (let y = y0; y < Math.min(height, y0 + h); y++) {
      for (let x = x0; x < Math.min(width, x0 + w); x++) {
        const at = y * (width * 3 + 1) + 1 + x * 3;
        raw[at] = rgb[0] ?? 0;
        raw[at + 1] = rgb[1] ?? 0;
        raw[at + 2] = rgb[2] ?? 0;
      }
    }
  };
  for (let y = 0; y < height; y++) raw[y * (width * 3 + 1)] = 0; // filter type: none
  paint(0, 0, width, 24, header);
  for (let i = 0; i < lines; i++) paint(10, 36 + i * 14, 30 + (hash32(seed, i, 9) % 70), 6, [150, 150, 150]);
  paint(10, height - 22, width - 20, 8, [40, 40, 40]);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    // Ancillary, private, safe to copy: decoders skip it.
    ...(grain ? [chunk('scAn', grain)] : []),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/**
 * `size` pseudo-random bytes from `seed`, the same every time: the AES-128-CTR stream of a key
 * made from the seed, as incompressible as a JPEG photo and made at memory speed.
 */
export function makeGrain(seed: number, size: number): Buffer {
  const key = Buffer.alloc(16);
  for (let i = 0; i < 4; i++) key.writeUInt32BE(hash32(seed, 0x6772, i), i * 4);
  return createCipheriv('aes-128-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(size));
}

/** PDF string literal: Latin-1 only, with ( ) \ escaped. */
function pdfText(text: string): string {
  return text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?').replace(/([()\\])/g, '\\$1');
}

/** A one-page A6 PDF with the given lines in Helvetica; byte offsets in the xref are exact. */
export function makePdf(lines: string[], grain?: Buffer): Buffer {
  const content = [
    'BT',
    '/F1 11 Tf',
    '24 390 Td',
    '14 TL',
    ...lines.map((line) => `(${pdfText(line)}) '`),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    // Referenced by nothing, so never drawn.
    ...(grain ? [`<< /Length ${grain.length} >>\nstream\n${grain.toString('latin1')}\nendstream`] : []),
  ];
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
