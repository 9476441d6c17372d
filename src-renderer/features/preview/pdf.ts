import { getDocument, GlobalWorkerOptions, type PDFDocumentProxy } from 'pdfjs-dist';
// The worker is a file of the app's own bundle (script-src and worker-src 'self'), never a blob
// or a remote copy. This module is loaded on demand, so pdf.js costs nothing until a PDF opens.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;

export type { PDFDocumentProxy };

/**
 * Opens PDF bytes with pdf.js, locked down: no eval (the CSP allows none), no WebAssembly, no
 * scripting, nothing fetched by the worker. Fonts a receipt does not embed fall back to system
 * fonts.
 */
export function openPdf(data: Uint8Array): Promise<PDFDocumentProxy> {
  return getDocument({
    data,
    isEvalSupported: false,
    useWasm: false,
    useWorkerFetch: false,
    useSystemFonts: true,
    enableXfa: false,
    stopAtErrors: false,
    // A page image larger than this (pixels) is left out rather than exhausting memory.
    maxImageSize: 64 * 1024 * 1024,
  }).promise;
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
