import { useEffect, useRef, useState, type CSSProperties } from 'react';
import { useViewer, ViewerControls, type Turn } from './viewer';

/**
 * Where the image goes in its box, turned: rotated about its top left corner, then moved back
 * into the box (whose sides, for a quarter turn, are the image's swapped).
 */
function placement(turn: Turn, box: { width: number; height: number }): string | undefined {
  switch (turn) {
    case 90:
      return `translateX(${box.width}px) rotate(90deg)`;
    case 180:
      return `translate(${box.width}px, ${box.height}px) rotate(180deg)`;
    case 270:
      return `translateY(${box.height}px) rotate(270deg)`;
    default:
      return undefined;
  }
}

/**
 * An image receipt: at "Fit" as wide as the pane allows and never wider than itself (a photo
 * of 8000 × 6000 pixels fits the pane; a small scan is not blown up), zoomed with the buttons or
 * +, - and 0 and turned with the buttons or R and Shift+R while the focus is on it, scrolling
 * inside its frame when larger than the pane.
 *
 * A turned image is laid out as what it shows: a box of the turned size (a quarter turn swaps
 * width and height) holds the image, which is rotated into it. So "Fit" fits the turned width,
 * and the frame scrolls to every edge of a turned, zoomed image; rotating the image alone would
 * leave its layout upright, part of it above or left of the frame where no scrolling reaches.
 */
export function ImageView({
  url,
  label,
  turn,
  onTurn,
  onError,
}: {
  url: string;
  label: string;
  turn: Turn;
  onTurn(turn: Turn): void;
  onError(): void;
}) {
  const viewer = useViewer({ rotation: turn, onTurn });
  const frame = useRef<HTMLDivElement>(null);
  // The image's own size, known once its pixels could be read.
  const [natural, setNatural] = useState<{ width: number; height: number } | null>(null);
  // The frame's width, followed as the pane changes. Its border box: a scrollbar that comes
  // with zooming does not shrink "Fit".
  const [frameWidth, setFrameWidth] = useState(0);
  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const measure = () => setFrameWidth(element.offsetWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const shown = natural !== null;
  const quarter = turn % 180 !== 0;
  let box: { width: number; height: number } | null = null;
  if (natural) {
    const across = quarter ? natural.height : natural.width;
    const down = quarter ? natural.width : natural.height;
    const fit = Math.min(across, frameWidth || across);
    const width = Math.max(1, Math.round(fit * viewer.zoom));
    box = { width, height: Math.max(1, Math.round((width * down) / across)) };
  }
  const imageStyle: CSSProperties | undefined = box
    ? {
        width: `${quarter ? box.height : box.width}px`,
        height: `${quarter ? box.width : box.height}px`,
        transform: placement(turn, box),
      }
    : undefined;
  return (
    <figure
      className="preview-image-view"
      aria-label={`Image ${label}`}
      onKeyDown={(event) => shown && viewer.onKey(event)}
    >
      {shown && (
        <div className="preview-toolbar">
          <ViewerControls viewer={viewer} label={label} />
        </div>
      )}
      <div
        className="preview-image-frame"
        ref={frame}
        role="group"
        aria-label={`Receipt view of ${label}`}
        tabIndex={shown ? 0 : -1}
        data-zoomed={(shown && viewer.zoom !== 1) || undefined}
      >
        <div
          className="preview-image-box"
          style={box ? { width: `${box.width}px`, height: `${box.height}px` } : undefined}
          data-sized={box ? true : undefined}
        >
          <img
            className="preview-image"
            src={url}
            alt={`Receipt ${label}`}
            style={imageStyle}
            data-sized={box ? true : undefined}
            data-turn={turn}
            // A header that passes for an image's "loads" (and `decode()`s) with nothing drawable
            // behind it: only an image whose pixels could be read counts as shown.
            onLoad={(event) => {
              const image = event.currentTarget;
              createImageBitmap(image).then((bitmap) => {
                bitmap.close();
                setNatural({ width: image.naturalWidth, height: image.naturalHeight });
              }, onError);
            }}
            onError={onError}
          />
        </div>
      </div>
    </figure>
  );
}
