import { useId, useState } from 'react';
import '../../components/chrome.css';
import { applyTheme, readTheme, THEME_CHOICES, themeLabels, type ThemeChoice } from '../../lib/theme';

/** The theme: the system's, or always light, or always dark; shown at once and remembered. */
export function AppearanceSection() {
  const id = useId();
  const [theme, setTheme] = useState<ThemeChoice>(readTheme);
  const choose = (choice: ThemeChoice) => {
    setTheme(choice);
    applyTheme(choice);
  };
  return (
    <section className="settings-section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Appearance</h2>
      <fieldset className="choice-row" data-testid="theme-choice">
        <legend>Theme</legend>
        {THEME_CHOICES.map((choice) => (
          <label key={choice} className="check">
            <input
              type="radio"
              name={`${id}-theme`}
              value={choice}
              checked={theme === choice}
              onChange={() => choose(choice)}
            />{' '}
            {themeLabels[choice]}
          </label>
        ))}
      </fieldset>
    </section>
  );
}
