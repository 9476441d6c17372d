import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { openPdf, pageText, type PDFDocumentLoadingTask, type PDFDocumentProxy } from './pdf';
import { useViewer, ViewerControls, type Turn } from './viewer';

/** Widest the page is drawn at "Fit", in CSS pixels; the canvas has the device's pixel density. */
const MAX_WIDTH = 560;
/** Most pixels a page's canvas gets (zoomed in on a dense screen): past it, the density drops. */
const MAX_CANVAS_PIXELS = 16 * 1024 * 1024;

/** Why a PDF could not be opened at all, as the pane tells it. */
export type PdfProblem = { kind: 'password' } | { kind: 'damaged' } | { kind: 'failed'; detail: string };

/** pdf.js's exceptions by name: a locked file, a file that is no PDF (or an empty one). */
function problemOf(error: unknown): PdfProblem {
  const name = error instanceof Error ? error.name : '';
  if (name === 'PasswordException') return { kind: 'password' };
  if (name === 'InvalidPDFException') return { kind: 'damaged' };
  return { kind: 'failed', detail: error instanceof Error ? error.message : String(error) };
}

/**
 * A PDF drawn by pdf.js, one page at a time (a statement of 200 pages draws one), with page
 * navigation (buttons, PageUp/PageDown, Home/End), zoom (buttons, +, -, 0), quarter turns
 * (buttons, R and Shift+R: every page is drawn turned, by pdf.js's viewport, never a rotated
 * canvas) and the page's text as its text alternative. The bytes come from the app's file
 * route (`files.fetch`'s URL); pdf.js itself fetches nothing. The document is destroyed when
 * the view goes (another receipt, the pane closed), also when it was still opening.
 */
/** Mounted once per URL (the caller keys it by the URL). */
export default function PdfView({
  url,
  label,
  turn,
  onTurn,
  onUnreadable,
  onProblem,
}: {
  url: string;
  label: string;
  /** The turn of every page, held by the caller for the file. */
  turn: Turn;
  onTurn(turn: Turn): void;
  /** The route has no such file (any more). */
  onUnreadable(): void;
  /** The file is there but pdf.js cannot open it. */
  onProblem(problem: PdfProblem): void;
}) {
  const id = useId();
  const [pdf, setPdf] = useState<PDFDocumentProxy | null>(null);
  const [pageProblem, setPageProblem] = useState<string | null>(null);
  const [pageNumber, setPageNumber] = useState(1);
  const [text, setText] = useState<string | null>(null);
  const [showText, setShowText] = useState(false);
  const [drawn, setDrawn] = useState(false);
  const viewer = useViewer({ rotation: turn, onTurn });
  const canvas = useRef<HTMLCanvasElement>(null);
  const frame = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let task: PDFDocumentLoadingTask | null = null;
    let cancelled = false;
    (async () => {
      const response = await fetch(url);
      if (response.status === 404) {
        if (!cancelled) onUnreadable();
        return;
      }
      if (!response.ok) throw new Error(`the file route answered ${response.status}`);
      const data = new Uint8Array(await response.arrayBuffer());
      if (cancelled) return;
      task = openPdf(data);
      const opened = await task.promise;
      if (!cancelled) setPdf(opened);
    })().catch((error: unknown) => {
      // A file pdf.js refused is freed in the worker too, not only one that opened.
      void task?.destroy();
      if (!cancelled) onProblem(problemOf(error));
    });
    return () => {
      cancelled = true;
      void task?.destroy();
    };
    // Mounted once per URL; the callbacks are read when the answer comes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [url]);

  const { zoom, rotation } = viewer;
  useEffect(() => {
    if (!pdf || !canvas.current) return;
    const target = canvas.current;
    let cancelled = false;
    let task: { cancel(): void; promise: Promise<void> } | null = null;
    setDrawn(false);
    (async () => {
      const page = await pdf.getPage(pageNumber);
      if (cancelled) return;
      const turned = (page.rotate + rotation) % 360;
      const natural = page.getViewport({ scale: 1, rotation: turned });
      const fit = Math.min(MAX_WIDTH, frame.current?.clientWidth || MAX_WIDTH);
      const scale = (fit * zoom) / natural.width;
      const cssWidth = natural.width * scale;
      const cssHeight = natural.height * scale;
      const ratio = Math.min(
        window.devicePixelRatio || 1,
        Math.sqrt(MAX_CANVAS_PIXELS / Math.max(1, cssWidth * cssHeight)),
      );
      const viewport = page.getViewport({ scale: scale * ratio, rotation: turned });
      target.width = Math.floor(viewport.width);
      target.height = Math.floor(viewport.height);
      target.style.width = `${Math.floor(cssWidth)}px`;
      target.style.height = `${Math.floor(cssHeight)}px`;
      task = page.render({ canvas: target, viewport });
      await task.promise;
      if (cancelled) return;
      setPageProblem(null);
      setDrawn(true);
      const words = await pageText(pdf, pageNumber);
      if (!cancelled) setText(words);
    })().catch((error: unknown) => {
      if (cancelled || (error instanceof Error && error.name === 'RenderingCancelledException')) return;
      setPageProblem(
        `Page ${pageNumber} could not be drawn (${error instanceof Error ? error.message : String(error)}).`,
      );
    });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [pdf, pageNumber, zoom, rotation]);

  const pages = pdf?.numPages ?? 0;
  const go = (next: number) => {
    const page = Math.min(Math.max(1, next), pages);
    if (page === pageNumber) return;
    setDrawn(false);
    setText(null);
    setPageProblem(null);
    setPageNumber(page);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (!pdf || viewer.onKey(event)) return;
    const moves: Record<string, number> = {
      PageDown: pageNumber + 1,
      PageUp: pageNumber - 1,
      Home: 1,
      End: pages,
    };
    const next = moves[event.key];
    if (next === undefined || pages <= 1) return;
    event.preventDefault();
    event.stopPropagation();
    go(next);
  };
  const pageLabel = `Page ${pageNumber} of ${pages || '…'}`;

  return (
    <figure className="preview-pdf" aria-label={`PDF ${label}`} onKeyDown={onKeyDown}>
      {pdf && (
        <div className="preview-toolbar">
          {/* aria-disabled, not disabled: the button at the last page keeps the focus (and Esc works). */}
          {pages > 1 && (
            <div className="preview-pager" role="group" aria-label={`Pages of ${label}`}>
              <button
                type="button"
                onClick={() => go(pageNumber - 1)}
                aria-disabled={pageNumber <= 1}
                aria-label="Previous page (Page Up)"
              >
                ‹
              </button>
              <span aria-live="polite" className="preview-page-number">
                {pageLabel}
              </span>
              <button
                type="button"
                onClick={() => go(pageNumber + 1)}
                aria-disabled={pageNumber >= pages}
                aria-label="Next page (Page Down)"
              >
                ›
              </button>
            </div>
          )}
          <ViewerControls viewer={viewer} label={label} />
        </div>
      )}
      {/* Focusable, so that a page zoomed past the pane scrolls with the arrow keys. */}
      <div
        className="preview-canvas-frame"
        ref={frame}
        role="group"
        aria-label={`${pageLabel} of ${label}`}
        tabIndex={pdf ? 0 : -1}
        data-zoomed={zoom !== 1 || undefined}
      >
        {!pdf && (
          <p className="muted preview-note" role="status">
            Opening the PDF…
          </p>
        )}
        {pageProblem && (
          <p className="preview-problem" role="alert">
            {pageProblem}
          </p>
        )}
        <canvas
          ref={canvas}
          role="img"
          aria-label={`${label}, ${pageLabel.toLowerCase()}`}
          aria-describedby={`${id}-text`}
          data-drawn={drawn || undefined}
          hidden={!pdf || pageProblem !== null}
        />
      </div>
      <figcaption className="preview-caption">
        <button
          type="button"
          className="preview-text-toggle"
          aria-expanded={showText}
          aria-controls={`${id}-text`}
          onClick={() => setShowText((shown) => !shown)}
          disabled={text === null}
        >
          {showText ? 'Hide the text of the page' : 'Show the text of the page'}
        </button>
        <pre id={`${id}-text`} className="preview-text" hidden={!showText} data-testid="pdf-text">
          {text === null ? '' : text || 'This page has no text (a scanned image).'}
        </pre>
      </figcaption>
    </figure>
  );
}
