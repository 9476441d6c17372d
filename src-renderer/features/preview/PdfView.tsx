import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { openPdf, pageText, type PDFDocumentLoadingTask, type PDFDocumentProxy } from './pdf';
import { useViewer, ViewerControls, type Turn } from './viewer';

/** Widest the page is drawn at "Fit", in CSS pixels; the canvas has the device's pixel density. */
const MAX_WIDTH = 560;
/** Most pixels a page's canvas gets (zoomed in on a dense screen): past it, the density drops. */
const MAX_CANVAS_PIXELS = 16 * 1024 * 1024;
/**
 * How long the frame's width holds still before the page is drawn again at it: a window edge
 * dragged draws once, at its end, while the drawing already shown is scaled along each frame.
 */
const REDRAW_AFTER_MS = 120;

/** What the canvas shows: which drawing, and the fit and CSS size it was drawn for. */
interface Shown {
  key: string;
  /** At "Fit": laid out by CSS at the frame's width, whatever the fit it was drawn for. */
  fitted: boolean;
  fit: number;
  width: number;
  height: number;
}

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
 *
 * "Fit" is the frame's width, followed as the pane or the window changes (a `ResizeObserver`):
 * the drawing on screen follows at once (at Fit laid out by CSS at the frame's width, zoomed
 * scaled to its new size), and the page is drawn again, sharp, once the width has held for
 * `REDRAW_AFTER_MS`. Every drawing is made on a canvas of its own
 * and copied onto the one on screen only when complete, so the page never goes blank while it
 * is drawn; a drawing that a newer one supersedes (the width, zoom, turn or page changed) is
 * cancelled and never lands.
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
  // The text of a page, read once it is drawn (and kept while it is drawn again, larger or turned).
  const [text, setText] = useState<{ page: number; words: string } | null>(null);
  const [showText, setShowText] = useState(false);
  const [drawn, setDrawn] = useState(false);
  const viewer = useViewer({ rotation: turn, onTurn });
  const canvas = useRef<HTMLCanvasElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const shown = useRef<Shown | null>(null);

  // The frame's width, followed. Its border box, as the image's: a scrollbar that comes with
  // zooming does not change "Fit".
  const [frameWidth, setFrameWidth] = useState(0);
  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setFrameWidth(element.offsetWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const fit = Math.min(MAX_WIDTH, frameWidth || MAX_WIDTH);
  const latestFit = useRef(fit);
  // The fit the page is drawn at: the frame's width once it has held still (at once while
  // nothing is drawn yet, so a PDF opening is drawn once, at the pane's width).
  const [drawFit, setDrawFit] = useState(fit);
  useLayoutEffect(() => {
    latestFit.current = fit;
    // The drawing on screen follows at once, scaled, until the page is drawn at the new width.
    const target = canvas.current;
    const now = shown.current;
    if (target && now && !now.fitted && now.fit !== fit) {
      target.style.width = `${Math.floor((now.width * fit) / now.fit)}px`;
      target.style.height = `${Math.floor((now.height * fit) / now.fit)}px`;
    }
    if (fit === drawFit) return;
    if (!now) {
      setDrawFit(fit);
      return;
    }
    const timer = setTimeout(() => setDrawFit(fit), REDRAW_AFTER_MS);
    return () => clearTimeout(timer);
  }, [fit, drawFit]);

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
    const key = `${pageNumber}:${zoom}:${rotation}`;
    let cancelled = false;
    let task: { cancel(): void; promise: Promise<void> } | null = null;
    // Drawn again at a new width, the page on screen is still the one asked for.
    if (shown.current?.key !== key) setDrawn(false);
    const drawing = document.createElement('canvas');
    (async () => {
      const page = await pdf.getPage(pageNumber);
      if (cancelled) return;
      const turned = (page.rotate + rotation) % 360;
      const natural = page.getViewport({ scale: 1, rotation: turned });
      const scale = (drawFit * zoom) / natural.width;
      const cssWidth = natural.width * scale;
      const cssHeight = natural.height * scale;
      const ratio = Math.min(
        window.devicePixelRatio || 1,
        Math.sqrt(MAX_CANVAS_PIXELS / Math.max(1, cssWidth * cssHeight)),
      );
      const viewport = page.getViewport({ scale: scale * ratio, rotation: turned });
      drawing.width = Math.floor(viewport.width);
      drawing.height = Math.floor(viewport.height);
      task = page.render({ canvas: drawing, viewport });
      await task.promise;
      if (cancelled) return;
      // Complete: onto the canvas on screen in one go (resizing it clears it, the copy fills it
      // before the next paint), laid out at the fit of now, which a drag may have moved on.
      target.width = drawing.width;
      target.height = drawing.height;
      target.getContext('2d')?.drawImage(drawing, 0, 0);
      const fitted = zoom === 1;
      shown.current = { key, fitted, fit: drawFit, width: cssWidth, height: cssHeight };
      // At "Fit" the layout is the frame's width, by CSS: the page follows the frame as it is laid
      // out, and a scrollbar the page brings to the pane (a narrower frame, a shorter page) cannot
      // make it grow and shrink by turns. Only its pixels wait for the next drawing.
      target.style.aspectRatio = `${cssWidth} / ${cssHeight}`;
      const now = latestFit.current;
      target.style.width = fitted ? '100%' : `${Math.floor((cssWidth * now) / drawFit)}px`;
      target.style.height = fitted ? '' : `${Math.floor((cssHeight * now) / drawFit)}px`;
      setPageProblem(null);
      setDrawn(true);
    })()
      .catch((error: unknown) => {
        if (cancelled || (error instanceof Error && error.name === 'RenderingCancelledException')) return;
        setPageProblem(
          `Page ${pageNumber} could not be drawn (${error instanceof Error ? error.message : String(error)}).`,
        );
      })
      .finally(() => {
        // The drawing's pixels are freed now, not when it is collected.
        drawing.width = 0;
        drawing.height = 0;
      });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [pdf, pageNumber, zoom, rotation, drawFit]);

  const words = text?.page === pageNumber ? text.words : null;
  useEffect(() => {
    if (!pdf || !drawn || words !== null) return;
    let cancelled = false;
    pageText(pdf, pageNumber).then(
      (read) => {
        if (!cancelled) setText({ page: pageNumber, words: read });
      },
      (error: unknown) => {
        if (cancelled) return;
        setPageProblem(
          `Page ${pageNumber} could not be drawn (${error instanceof Error ? error.message : String(error)}).`,
        );
      },
    );
    return () => {
      cancelled = true;
    };
  }, [pdf, pageNumber, drawn, words]);

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
          disabled={words === null}
        >
          {showText ? 'Hide the text of the page' : 'Show the text of the page'}
        </button>
        <pre id={`${id}-text`} className="preview-text" hidden={!showText} data-testid="pdf-text">
          {words === null ? '' : words || 'This page has no text (a scanned image).'}
        </pre>
      </figcaption>
    </figure>
  );
}
