import { useRef, useState } from 'react';
import { useViewer, ViewerControls } from './viewer';

/**
 * An image receipt: at "Fit" as wide as the pane allows and never wider than itself (a photo
 * of 8000 × 6000 pixels fits the pane; a small scan is not blown up), zoomed with the buttons or
 * +, - and 0 while the focus is on it, scrolling inside its frame when larger than the pane.
 */
export function ImageView({ url, label, onError }: { url: string; label: string; onError(): void }) {
  const viewer = useViewer({ rotates: false });
  const frame = useRef<HTMLDivElement>(null);
  // The width of "Fit", measured once the image is known.
  const [fitWidth, setFitWidth] = useState<number | null>(null);
  const zoomed = fitWidth !== null && viewer.zoom !== 1;
  return (
    <figure
      className="preview-image-view"
      aria-label={`Image ${label}`}
      onKeyDown={(event) => fitWidth !== null && viewer.onKey(event)}
    >
      {fitWidth !== null && (
        <div className="preview-toolbar">
          <ViewerControls viewer={viewer} label={label} rotates={false} />
        </div>
      )}
      <div
        className="preview-image-frame"
        ref={frame}
        role="group"
        aria-label={`Receipt view of ${label}`}
        tabIndex={fitWidth === null ? -1 : 0}
        data-zoomed={zoomed || undefined}
      >
        <img
          className="preview-image"
          src={url}
          alt={`Receipt ${label}`}
          style={zoomed ? { width: `${Math.round(fitWidth * viewer.zoom)}px` } : undefined}
          // A header that passes for an image's "loads" (and `decode()`s) with nothing drawable
          // behind it: only an image whose pixels could be read counts as shown.
          onLoad={(event) => {
            const image = event.currentTarget;
            createImageBitmap(image).then((bitmap) => {
              bitmap.close();
              setFitWidth(Math.min(image.naturalWidth, frame.current?.clientWidth || image.width));
            }, onError);
          }}
          onError={onError}
        />
      </div>
    </figure>
  );
}
