import { useState, type KeyboardEvent } from 'react';

/**
 * Zoom and turn of a receipt on screen, shared by the PDF and the image views. Zoom is a factor
 * of "fit": 1 is the page or image at the pane's width (never above its own size for an image),
 * larger ones scroll inside the frame. The turn is a quarter at a time, right (clockwise) or
 * left, for a receipt photographed or scanned sideways or upside down; it is the view's only
 * (nothing is written to the file or the server) and is held by the caller, per file
 * (`FilePreview`'s `turn`, kept for the session by `turns.ts`), so that it outlives the view.
 */
export const ZOOM_STEPS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4] as const;

/** Degrees clockwise: 0, 90, 180 or 270. */
export type Turn = 0 | 90 | 180 | 270;

/** The turn after one more quarter to the right (+1) or to the left (-1). */
export function turned(turn: number, direction: 1 | -1): Turn {
  return ((((turn + direction * 90) % 360) + 360) % 360) as Turn;
}

/** The turn in words, as the status beside the buttons says it (and a screen reader reads it). */
export function turnText(turn: number): string {
  switch (turn) {
    case 90:
      return 'Turned 90° right';
    case 180:
      return 'Turned 180°';
    case 270:
      return 'Turned 90° left';
    default:
      return 'Not turned';
  }
}

export interface Viewer {
  zoom: number;
  rotation: Turn;
  zoomIn(): void;
  zoomOut(): void;
  fit(): void;
  turnRight(): void;
  turnLeft(): void;
  /** The view's keys (+ or =, -, 0, R, Shift+R); true when the key was one of them. */
  onKey(event: KeyboardEvent<HTMLElement>): boolean;
}

/** Typing in a field goes to the field: the view's keys are letters and signs a note may hold. */
function typing(target: EventTarget): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest('input, textarea, select') !== null;
}

export function useViewer({ rotation, onTurn }: { rotation: Turn; onTurn(turn: Turn): void }): Viewer {
  const [zoom, setZoom] = useState(1);
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
    turnRight: () => onTurn(turned(rotation, 1)),
    turnLeft: () => onTurn(turned(rotation, -1)),
  };
  const keys: Record<string, () => void> = {
    '+': viewer.zoomIn,
    '=': viewer.zoomIn,
    '-': viewer.zoomOut,
    '0': viewer.fit,
  };
  return {
    ...viewer,
    onKey(event) {
      if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return false;
      // R turns right, Shift+R left; by the Shift key, not the letter's case, so that Caps Lock
      // does not reverse it.
      const run =
        event.key.toLowerCase() === 'r'
          ? event.shiftKey
            ? viewer.turnLeft
            : viewer.turnRight
          : keys[event.key];
      if (!run) return false;
      event.preventDefault();
      event.stopPropagation();
      run();
      return true;
    },
  };
}

/**
 * The zoom and turn buttons. `aria-disabled`, not `disabled`, at the ends of the zoom: the
 * button keeps the focus, so the keys and Esc go on working. The turn is said in a status
 * beside its buttons, which a screen reader reads out when it changes.
 */
export function ViewerControls({ viewer, label }: { viewer: Viewer; label: string }) {
  const smallest = viewer.zoom <= ZOOM_STEPS[0];
  const largest = viewer.zoom >= ZOOM_STEPS[ZOOM_STEPS.length - 1]!;
  return (
    <>
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
      </div>
      <div className="preview-tools" role="group" aria-label={`Turn of ${label}`}>
        <button
          type="button"
          aria-label="Turn left (Shift+R)"
          title="Turn left a quarter (Shift+R)"
          onClick={viewer.turnLeft}
        >
          <span aria-hidden="true">↺</span> Turn left
        </button>
        <button
          type="button"
          aria-label="Turn right (R)"
          title="Turn right a quarter (R)"
          onClick={viewer.turnRight}
        >
          <span aria-hidden="true">↻</span> Turn right
        </button>
        <span className="preview-turn" role="status">
          {turnText(viewer.rotation)}
        </span>
      </div>
    </>
  );
}
