/* global document */
// Applies the stored theme choice (lib/theme.ts) before the first paint, so a dark choice on a
// light system never flashes light. A classic script: the CSP allows no inline script.
try {
  var theme = localStorage.getItem('satchel.theme');
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
} catch {
  // No storage: the system theme applies.
}
