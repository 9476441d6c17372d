import { useEffect } from 'react';
import type { ProfileSummary } from '../../../src-shared/profiles';
import '../../components/chrome.css';
import { formatCount } from '../../lib/format';
import { isPlainKey } from '../../lib/keys';
import { useCommand } from '../../lib/query';
import { attentionItems, type Opening } from './groups';
import { ReviewFileSection } from './ReviewFileSection';

/**
 * What is left to review, group by group, each with the count and one key (1…4) or click that
 * opens its list in Transactions or Expenses with the filter applied.
 */
export function AttentionView({
  profile,
  onOpen,
}: {
  profile: ProfileSummary;
  onOpen(opening: Opening): void;
}) {
  const attention = useCommand('review.attention', { profileId: profile.id });
  const items = attentionItems(attention.data?.groups ?? []);

  useEffect(() => {
    // Digits open a group from anywhere on the screen, unless the user is typing.
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (!isPlainKey(event) || document.querySelector('dialog[open]')) return;
      const item = items[Number(event.key) - 1];
      if (!/^[1-9]$/.test(event.key) || !item?.opening) return;
      event.preventDefault();
      onOpen(item.opening);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  return (
    <section className="area" data-area="attention">
      <div className="area-head">
        <h1 id="area-title" tabIndex={-1}>
          Needs attention
        </h1>
        <p className="muted">{profile.name}</p>
      </div>
      <p className="muted">
        Marking an item reviewed takes it off the first two lists; a flag stays until you take it off.
      </p>
      {attention.error && (
        <p className="form-error" role="alert">
          {attention.error.message}
        </p>
      )}
      {attention.data ? (
        <ul className="attention-list" aria-label="Groups" data-testid="attention">
          {items.map((item, index) => (
            <li
              key={item.group}
              className="attention-item"
              data-zero={item.count === 0 || undefined}
              data-group={item.group}
            >
              <span className="attention-count" aria-hidden="true">
                {formatCount(item.count)}
              </span>
              <div>
                <h2 className="attention-title" id={`attention-${item.group}`}>
                  {item.title}
                  <span className="visually-hidden">: {formatCount(item.count)}</span>
                </h2>
                {item.text && <p className="muted">{item.text}</p>}
              </div>
              {item.opening && (
                <span className="attention-open">
                  <button
                    type="button"
                    aria-keyshortcuts={String(index + 1)}
                    onClick={() => item.opening && onOpen(item.opening)}
                  >
                    Open<span className="visually-hidden"> {item.title}</span>
                  </button>
                  <kbd title={`Key ${index + 1}`}>{index + 1}</kbd>
                </span>
              )}
            </li>
          ))}
        </ul>
      ) : (
        !attention.error && <p className="muted">Counting…</p>
      )}
      <ReviewFileSection profile={profile} />
    </section>
  );
}
