/**
 * The app window's options. Pure data, so tests can assert every security setting without
 * Electron. The type is structural on purpose: this module must not import electron.
 */
export interface SecureWindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  /** The sizes are of the page, not of the window with its frame and menu bar. */
  useContentSize: true;
  show: boolean;
  title: string;
  backgroundColor: string;
  webPreferences: {
    preload: string;
    contextIsolation: true;
    sandbox: true;
    nodeIntegration: false;
    nodeIntegrationInWorker: false;
    nodeIntegrationInSubFrames: false;
    webSecurity: true;
    allowRunningInsecureContent: false;
    webviewTag: false;
    spellcheck: boolean;
  };
}

export function windowOptions(preloadPath: string): SecureWindowOptions {
  return {
    width: 1280,
    height: 820,
    // The smallest page every area is laid out for and tested at (test/e2e/small-window.test.ts):
    // a small laptop's screen, or half of a larger one. Measured without the frame and menu bar
    // (useContentSize), so the page is this size whatever the system's decorations.
    minWidth: 800,
    minHeight: 560,
    useContentSize: true,
    show: false,
    title: 'Satchel',
    backgroundColor: '#f7f7f5',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: true,
    },
  };
}
