import { useState, type KeyboardEvent } from 'react';

/**
 * Zoom and rotation of a receipt on screen, shared by the PDF and the image views. Zoom is a
 * factor of "fit": 1 is the page or image at the pane's width (never above its own size for an
 * image), larger ones scroll inside the frame. Rotation turns by quarters (PDFs: a scan filed
 * sideways).
 */
export const ZOOM_STEPS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4] as const;

export interface Viewer {
  zoom: number;
  rotation: number;
  zoomIn(): void;
  zoomOut(): void;
  fit(): void;
  rotate(): void;
  /** The view's keys (+ or =, -, 0, R); true when the key was one of them. */
  onKey(event: KeyboardEvent<HTMLElement>): boolean;
}

export function useViewer({ rotates }: { rotates: boolean }): Viewer {
  const [zoom, setZoom] = useState(1);
  const [rotation, setRotation] = useState(0);
  const step = (direction: 1 | -1) =>
    setZoom((current) => {
      const at = ZOOM_STEPS.indexOf(current as (typeof ZOOM_STEPS)[number]);
      return ZOOM_STEPS[Math.min(ZOOM_STEPS.length - 1, Math.max(0, at + direction))] ?? current;
    });
  const viewer: Omit<Viewer, 'onKey'> = {
    zoom,
    rotation,
    zoomIn: () => step(1),
    zoomOut: () => step(-1),
    fit: () => setZoom(1),
    rotate: () => setRotation((current) => (current + 90) % 360),
  };
  const keys: Record<string, () => void> = {
    '+': viewer.zoomIn,
    '=': viewer.zoomIn,
    '-': viewer.zoomOut,
    '0': viewer.fit,
    ...(rotates ? { r: viewer.rotate, R: viewer.rotate } : {}),
  };
  return {
    ...viewer,
    onKey(event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return false;
      const run = keys[event.key];
      if (!run) return false;
      event.preventDefault();
      event.stopPropagation();
      run();
      return true;
    },
  };
}

/**
 * The zoom (and rotation) buttons. `aria-disabled`, not `disabled`, at the ends: the button
 * keeps the focus, so the keys and Esc go on working.
 */
export function ViewerControls({
  viewer,
  label,
  rotates,
}: {
  viewer: Viewer;
  label: string;
  rotates: boolean;
}) {
  const smallest = viewer.zoom <= ZOOM_STEPS[0];
  const largest = viewer.zoom >= ZOOM_STEPS[ZOOM_STEPS.length - 1]!;
  return (
    <div className="preview-tools" role="group" aria-label={`Zoom of ${label}`}>
      <button
        type="button"
        aria-label="Zoom out (-)"
        aria-disabled={smallest}
        onClick={() => !smallest && viewer.zoomOut()}
      >
        −
      </button>
      <span className="preview-zoom" aria-live="polite">
        {viewer.zoom === 1 ? 'Fit' : `${Math.round(viewer.zoom * 100)} %`}
      </span>
      <button
        type="button"
        aria-label="Zoom in (+)"
        aria-disabled={largest}
        onClick={() => !largest && viewer.zoomIn()}
      >
        +
      </button>
      <button
        type="button"
        aria-label="Fit to the pane (0)"
        aria-pressed={viewer.zoom === 1}
        onClick={viewer.fit}
      >
        Fit
      </button>
      {rotates && (
        <button type="button" aria-label="Rotate a quarter turn (R)" onClick={viewer.rotate}>
          ↻
        </button>
      )}
    </div>
  );
}
