import {
  getDocument,
  GlobalWorkerOptions,
  type PDFDocumentLoadingTask,
  type PDFDocumentProxy,
} from 'pdfjs-dist';
// The worker is a file of the app's own bundle (script-src and worker-src 'self'), never a blob
// or a remote copy. This module is loaded on demand, so pdf.js costs nothing until a PDF opens.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;

/**
 * The data pdf.js needs besides the PDF: Adobe's CMaps (text in Chinese, Japanese or Korean
 * set in a font the receipt does not embed) and its Symbol and ZapfDingbats fonts (the other
 * standard fonts are the system's). Each
 * file is a chunk of the app's own bundle holding its bytes as base64, imported when a PDF
 * first asks for it: it loads like any other script of the app, whatever the page's scheme
 * (`fetch` reads no `file:` URL, and the CSP allows no `data:` connection).
 */
const bundled: Record<string, Record<string, () => Promise<string>>> = {
  cMapUrl: import.meta.glob<string>('../../../node_modules/pdfjs-dist/cmaps/*.bcmap', {
    query: '?base64',
    import: 'default',
  }),
  // With system fonts on, pdf.js asks only for these two (Symbol and ZapfDingbats).
  standardFontDataUrl: import.meta.glob<string>(
    '../../../node_modules/pdfjs-dist/standard_fonts/{FoxitSymbol,FoxitDingbats}.pfb',
    { query: '?base64', import: 'default' },
  ),
};

/** The part of a path after its last slash. */
const baseName = (file: string) => file.slice(file.lastIndexOf('/') + 1);

const byName = new Map(
  Object.entries(bundled).map(([kind, files]) => [
    kind,
    new Map(Object.entries(files).map(([file, load]) => [baseName(file), load])),
  ]),
);

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * pdf.js's `BinaryDataFactory`: the files above by name. A name the bundle does not hold
 * (a PDF may name any CMap) is an error pdf.js reports as a warning and draws without.
 */
export class BundledData {
  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    const load = byName.get(kind)?.get(filename);
    if (!load) throw new Error(`No bundled ${kind === 'cMapUrl' ? 'CMap' : 'font'} named ${filename}.`);
    return fromBase64(await load());
  }
}

export type { PDFDocumentLoadingTask, PDFDocumentProxy };

/**
 * Opens PDF bytes with pdf.js, locked down: no eval (the CSP allows none), no WebAssembly, no
 * scripting, nothing fetched by the worker. Fonts a receipt does not embed fall back to system
 * fonts; CMaps and the symbol fonts come from the bundle (BundledData). The task is what frees
 * the document in the worker (`destroy()`), whether it opened, failed or is still opening.
 */
export function openPdf(data: Uint8Array): PDFDocumentLoadingTask {
  return getDocument({
    data,
    isEvalSupported: false,
    useWasm: false,
    useWorkerFetch: false,
    // Only names: BundledData reads the files from the bundle, never from these.
    cMapUrl: 'bundled/cmaps/',
    cMapPacked: true,
    standardFontDataUrl: 'bundled/standard_fonts/',
    BinaryDataFactory: BundledData,
    useSystemFonts: true,
    enableXfa: false,
    stopAtErrors: false,
    // A page image larger than this (pixels) is left out rather than exhausting memory.
    maxImageSize: 64 * 1024 * 1024,
  });
}

/** The text of one page, lines kept: the canvas's text alternative. */
export async function pageText(document: PDFDocumentProxy, pageNumber: number): Promise<string> {
  const page = await document.getPage(pageNumber);
  const content = await page.getTextContent();
  let text = '';
  for (const item of content.items) {
    if (!('str' in item)) continue;
    text += item.str;
    if (item.hasEOL) text += '\n';
    else if (item.str && !text.endsWith(' ')) text += ' ';
  }
  return text.replace(/[ \t]+\n/g, '\n').trim();
}
