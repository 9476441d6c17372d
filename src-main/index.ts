import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  net,
  powerMonitor,
  protocol,
  session,
  shell,
  type WebContents,
} from 'electron';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../src-shared/ipc';
import { createBackground } from './background';
import { createCore } from './core';
import { createHandlers, dispatch } from './handlers';
// Built by electron-vite as a script of its own; the path is where that script is at run time.
import totalsThread from './search/totals-thread?modulePath';
import reviewCheckThread from './review/check-thread?modulePath';
import { log } from './log';
import { aboutBox } from './shell/about';
import { CONTENT_SECURITY_POLICY } from './shell/csp';
import { confirmed, externalLinkDecision } from './shell/external-links';
import { FILE_SCHEME } from './shell/file-route';
import { answerFileRequest, appOriginOf, FILE_SCHEME_PRIVILEGES } from './shell/file-response';
import { menuTemplate, type MenuCommand } from './shell/menu';
import { isAppNavigation } from './shell/navigation';
import { createQuitSequence } from './shell/quit';
import { isTrustedSender } from './shell/sender';
import { windowOptions } from './shell/window-options';

// The thin Electron shell: everything it decides lives in modules that run without Electron
// (src-main/shell/, background.ts, connectivity.ts); this file only wires them to Electron.

if (!app.requestSingleInstanceLock()) app.quit();

// Receipts for the preview (docs/shell.md, "Files preview route"): privileged before `ready`,
// answered after it by shell/file-response.ts.
protocol.registerSchemesAsPrivileged([{ scheme: FILE_SCHEME, privileges: { ...FILE_SCHEME_PRIVILEGES } }]);

const here = path.dirname(fileURLToPath(import.meta.url));
const devServerUrl = process.env['ELECTRON_RENDERER_URL'];
const appUrl = devServerUrl ?? pathToFileURL(path.join(here, '../renderer/index.html')).href;
/** How often the system's network state is read; it has no change event on every platform. */
const NETWORK_POLL_MS = 5_000;

let mainWindow: BrowserWindow | null = null;

/** https links only, in the system browser, after the user said yes. */
function openExternally(url: string, contents: WebContents): void {
  const decision = externalLinkDecision(url);
  if (!decision.open) return;
  const owner = BrowserWindow.fromWebContents(contents);
  const asked = owner
    ? dialog.showMessageBox(owner, decision.confirm)
    : dialog.showMessageBox(decision.confirm);
  void asked.then(({ response }) => {
    if (confirmed(response)) void shell.openExternal(decision.url);
  });
}

function createWindow(): BrowserWindow {
  const window = new BrowserWindow(windowOptions(path.join(here, '../preload/index.cjs')));
  window.once('ready-to-show', () => window.show());
  window.webContents.setWindowOpenHandler(({ url }) => {
    openExternally(url, window.webContents);
    return { action: 'deny' };
  });
  window.webContents.on('will-navigate', (event, url) => {
    if (isAppNavigation(url, appUrl)) return;
    event.preventDefault();
    openExternally(url, window.webContents);
  });
  window.webContents.on('will-redirect', (event, url) => {
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

  let core: ReturnType<typeof createCore>;
  try {
    core = createCore({
      dataDir: app.getPath('userData'),
      totalsThread,
      reviewCheckThread,
      migrationsDir: app.isPackaged
        ? path.join(process.resourcesPath, 'migrations', 'cache')
        : path.join(app.getAppPath(), 'resources', 'migrations', 'cache'),
      async pickFolder({ title, defaultPath }) {
        const options = {
          title,
          ...(defaultPath ? { defaultPath } : {}),
          properties: ['openDirectory' as const, 'createDirectory' as const],
        };
        const result = mainWindow
          ? await dialog.showOpenDialog(mainWindow, options)
          : await dialog.showOpenDialog(options);
        return result.canceled ? null : (result.filePaths[0] ?? null);
      },
      // The core names only a download's own destination, checked to be a folder.
      openFolder: (folder) => shell.openPath(folder),
      async pickFile({ mode, title, extension, kind, defaultPath }) {
        const filters = [{ name: kind, extensions: [extension] }];
        const common = { title, filters, ...(defaultPath ? { defaultPath } : {}) };
        if (mode === 'save') {
          // The system asks before replacing a file (Linux only when told to).
          const options = { ...common, properties: ['showOverwriteConfirmation' as const] };
          const result = mainWindow
            ? await dialog.showSaveDialog(mainWindow, options)
            : await dialog.showSaveDialog(options);
          return result.canceled || !result.filePath ? null : result.filePath;
        }
        const options = { ...common, properties: ['openFile' as const] };
        const result = mainWindow
          ? await dialog.showOpenDialog(mainWindow, options)
          : await dialog.showOpenDialog(options);
        return result.canceled ? null : (result.filePaths[0] ?? null);
      },
    });
  } catch (error) {
    // No core, no window worth opening (a data folder that cannot be made): said, then quit.
    dialog.showErrorBox('Satchel cannot start', error instanceof Error ? error.message : String(error));
    app.quit();
    return;
  }
  const handlers = createHandlers(core);

  const appOrigin = appOriginOf(appUrl);
  protocol.handle(FILE_SCHEME, async (request) => {
    try {
      const reply = await answerFileRequest(
        { url: request.url, method: request.method, origin: request.headers.get('origin') },
        {
          appOrigin,
          filesRoot: (profileId) => core.files.filesRoot(profileId),
          allowed: (profileId) => core.profiles.list().some((profile) => profile.id === profileId),
        },
      );
      return new Response(reply.body, { status: reply.status, headers: reply.headers });
    } catch (error) {
      log.warn('file preview:', error);
      return new Response(null, { status: 500 });
    }
  });

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

  // Online state: the system's signal, read now and then and after a wake-up; failed and
  // answered requests feed the same state from inside the core.
  const readNetwork = () => core.connectivity.setNetwork(net.isOnline());
  readNetwork();
  const networkTimer = setInterval(readNetwork, NETWORK_POLL_MS);
  const background = createBackground({ core });
  powerMonitor.on('resume', () => {
    readNetwork();
    background.wake();
  });

  const runMenu = (command: MenuCommand) => {
    if ('page' in command) {
      core.events.emit('app.menu', { action: command.page });
    } else if (command.shell === 'about') {
      const box = aboutBox(core.info(), {
        electron: process.versions.electron,
        chrome: process.versions.chrome,
        node: process.versions.node,
      });
      void (mainWindow ? dialog.showMessageBox(mainWindow, box) : dialog.showMessageBox(box));
    } else {
      background.syncNow();
    }
  };
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      menuTemplate({
        platform: process.platform,
        productName: app.getName(),
        isPackaged: app.isPackaged,
        run: runMenu,
      }),
    ),
  );

  mainWindow = createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
  });
  background.start();

  // Quitting waits for the current page transaction and closes the caches cleanly.
  const quitting = createQuitSequence({
    async close() {
      clearInterval(networkTimer);
      await background.stop();
      await core.close();
    },
    onError: (error) => log.error('closing failed:', error),
  });
  app.on('will-quit', (event) => {
    if (!quitting.willQuit(() => app.quit())) event.preventDefault();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
