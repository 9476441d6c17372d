import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain, session } from 'electron';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../src-shared/ipc';
import { createCore } from './core';
import { createHandlers, dispatch } from './handlers';
import { CONTENT_SECURITY_POLICY } from './shell/csp';
import { isAppNavigation } from './shell/navigation';
import { isTrustedSender } from './shell/sender';
import { windowOptions } from './shell/window-options';

// The thin Electron shell: everything it wires lives in modules that run without Electron.

if (!app.requestSingleInstanceLock()) app.quit();

const here = path.dirname(fileURLToPath(import.meta.url));
const devServerUrl = process.env['ELECTRON_RENDERER_URL'];
const appUrl = devServerUrl ?? pathToFileURL(path.join(here, '../renderer/index.html')).href;

let mainWindow: BrowserWindow | null = null;

function createWindow(): BrowserWindow {
  const window = new BrowserWindow(windowOptions(path.join(here, '../preload/index.cjs')));
  window.once('ready-to-show', () => window.show());
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  window.webContents.on('will-navigate', (event, url) => {
    if (!isAppNavigation(url, appUrl)) event.preventDefault();
  });
  void window.loadURL(appUrl);
  return window;
}

app.on('second-instance', () => {
  if (!mainWindow) return;
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.focus();
});

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

void app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
  });

  const core = createCore({
    dataDir: app.getPath('userData'),
    migrationsDir: app.isPackaged
      ? path.join(process.resourcesPath, 'migrations', 'cache')
      : path.join(app.getAppPath(), 'resources', 'migrations', 'cache'),
  });
  const handlers = createHandlers(core);

  ipcMain.handle(IPC_INVOKE_CHANNEL, (event, command: unknown, input: unknown) => {
    const frame = event.senderFrame;
    if (!frame || !isTrustedSender(frame.url, frame === event.sender.mainFrame, appUrl)) {
      return { ok: false, error: { code: 'VALIDATION_ERROR', message: 'Refused: not the app window.' } };
    }
    return dispatch(handlers, command, input);
  });
  core.events.subscribe((name, payload) => {
    for (const window of BrowserWindow.getAllWindows())
      window.webContents.send(IPC_EVENT_CHANNEL, name, payload);
  });

  mainWindow = createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
  });
  // Quitting waits for the current page transaction and closes the caches cleanly.
  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    void core.close().finally(() => {
      closed = true;
      app.quit();
    });
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
