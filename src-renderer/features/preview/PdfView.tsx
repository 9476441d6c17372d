import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { openPdf, pageText, type PDFDocumentProxy } from './pdf';

/** Widest the page is drawn, in CSS pixels; the canvas has the device's pixel density. */
const MAX_WIDTH = 560;

/**
 * A PDF drawn by pdf.js, one page at a time, with page navigation (buttons, PageUp/PageDown,
 * Home/End) and the page's text as its text alternative. The bytes come from the app's file
 * route (`files.fetch`'s URL); pdf.js itself fetches nothing.
 */
/** Mounted once per URL (the caller keys it by the URL). */
export default function PdfView({
  url,
  label,
  onUnreadable,
}: {
  url: string;
  label: string;
  /** The route has no such file (any more). */
  onUnreadable(): void;
}) {
  const id = useId();
  const [pdf, setPdf] = useState<PDFDocumentProxy | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [pageNumber, setPageNumber] = useState(1);
  const [text, setText] = useState<string | null>(null);
  const [showText, setShowText] = useState(false);
  const [drawn, setDrawn] = useState(false);
  const canvas = useRef<HTMLCanvasElement>(null);
  const frame = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let opened: PDFDocumentProxy | null = null;
    let cancelled = false;
    (async () => {
      const response = await fetch(url);
      if (response.status === 404) {
        if (!cancelled) onUnreadable();
        return;
      }
      if (!response.ok) throw new Error(`the file route answered ${response.status}`);
      const data = new Uint8Array(await response.arrayBuffer());
      opened = await openPdf(data);
      if (cancelled) return void opened.destroy();
      setPdf(opened);
    })().catch((error: unknown) => {
      if (!cancelled)
        setProblem(
          `The PDF could not be shown (${error instanceof Error ? error.message : String(error)}). ` +
            'Download it to open it in another program.',
        );
    });
    return () => {
      cancelled = true;
      void opened?.destroy();
    };
    // Mounted once per URL; `onUnreadable` is read when the answer comes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [url]);

  useEffect(() => {
    if (!pdf || !canvas.current) return;
    const target = canvas.current;
    let cancelled = false;
    let task: { cancel(): void; promise: Promise<void> } | null = null;
    (async () => {
      const page = await pdf.getPage(pageNumber);
      if (cancelled) return;
      const natural = page.getViewport({ scale: 1 });
      const width = Math.min(MAX_WIDTH, frame.current?.clientWidth || MAX_WIDTH);
      const scale = width / natural.width;
      const ratio = window.devicePixelRatio || 1;
      const viewport = page.getViewport({ scale: scale * ratio });
      target.width = Math.floor(viewport.width);
      target.height = Math.floor(viewport.height);
      target.style.width = `${Math.floor(viewport.width / ratio)}px`;
      target.style.height = `${Math.floor(viewport.height / ratio)}px`;
      task = page.render({ canvas: target, viewport });
      await task.promise;
      if (cancelled) return;
      setDrawn(true);
      const words = await pageText(pdf, pageNumber);
      if (!cancelled) setText(words);
    })().catch((error: unknown) => {
      if (cancelled || (error instanceof Error && error.name === 'RenderingCancelledException')) return;
      setProblem(
        `Page ${pageNumber} could not be drawn (${error instanceof Error ? error.message : String(error)}).`,
      );
    });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [pdf, pageNumber]);

  if (problem)
    return (
      <p className="preview-problem" role="alert">
        {problem}
      </p>
    );

  const pages = pdf?.numPages ?? 0;
  const go = (next: number) => {
    const page = Math.min(Math.max(1, next), pages);
    if (page === pageNumber) return;
    setDrawn(false);
    setText(null);
    setPageNumber(page);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
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
      <div className="preview-canvas-frame" ref={frame}>
        {!pdf && (
          <p className="muted preview-note" role="status">
            Opening the PDF…
          </p>
        )}
        <canvas
          ref={canvas}
          role="img"
          aria-label={`${label}, ${pageLabel.toLowerCase()}`}
          aria-describedby={`${id}-text`}
          data-drawn={drawn || undefined}
          hidden={!pdf}
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
