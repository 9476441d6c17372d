import type { MenuAction } from '../../src-shared/ipc';

/**
 * The native menus. Pure data with click callbacks, so the tests read every item and shortcut
 * without Electron; `index.ts` hands the template to `Menu.buildFromTemplate`.
 *
 * The page handles its own keys (Ctrl/Cmd+1…7 for the areas, / to search, ? for help), so
 * those items only show their shortcut (`registerAccelerator: false`) and, when clicked, ask
 * the page through the `app.menu` event. On macOS a menu shortcut always wins over the page,
 * so there Cmd+1…7 reach the page through the menu, and the bare / and ? are not put on the
 * menu at all: as menu shortcuts they would swallow those characters in every text field.
 */

export type MenuRole =
  | 'about'
  | 'services'
  | 'hide'
  | 'hideOthers'
  | 'unhide'
  | 'quit'
  | 'close'
  | 'undo'
  | 'redo'
  | 'cut'
  | 'copy'
  | 'paste'
  | 'pasteAndMatchStyle'
  | 'selectAll'
  | 'reload'
  | 'forceReload'
  | 'toggleDevTools'
  | 'resetZoom'
  | 'zoomIn'
  | 'zoomOut'
  | 'togglefullscreen'
  | 'minimize'
  | 'windowMenu';

/** The subset of Electron's MenuItemConstructorOptions this app uses (structural: no electron). */
export interface MenuItemSpec {
  id?: string;
  label?: string;
  role?: MenuRole;
  type?: 'separator';
  accelerator?: string;
  registerAccelerator?: boolean;
  enabled?: boolean;
  submenu?: MenuItemSpec[];
  click?: () => void;
}

/** What a click asks for: something for the page, or something the shell does itself. */
export type MenuCommand = { page: MenuAction } | { shell: 'about' | 'syncNow' };

export interface MenuOptions {
  platform: string;
  productName: string;
  /** Developer items (reload, developer tools) only outside a packaged app. */
  isPackaged: boolean;
  run(command: MenuCommand): void;
}

/** The areas in sidebar order with their shortcut digit (as src-renderer/areas.ts). */
export const AREA_ITEMS: ReadonlyArray<{ action: MenuAction; label: string; key: string }> = [
  { action: 'go.transactions', label: 'Transactions', key: '1' },
  { action: 'go.expenses', label: 'Expenses', key: '2' },
  { action: 'go.suppliers', label: 'Suppliers', key: '3' },
  { action: 'go.dimensions', label: 'Dimensions', key: '8' },
  { action: 'go.files', label: 'Files', key: '4' },
  { action: 'go.sync', label: 'Sync', key: '5' },
  { action: 'go.settings', label: 'Settings', key: '6' },
  { action: 'go.attention', label: 'Needs Attention', key: '7' },
];

export const SYNC_NOW_ACCELERATOR = 'F5';

const separator: MenuItemSpec = { type: 'separator' };

export function menuTemplate(options: MenuOptions): MenuItemSpec[] {
  const mac = options.platform === 'darwin';
  const page = (action: MenuAction) => () => options.run({ page: action });
  const pageKey = (accelerator: string) =>
    mac ? { accelerator } : { accelerator, registerAccelerator: false };
  const about: MenuItemSpec = {
    id: 'about',
    label: `About ${options.productName}`,
    click: () => options.run({ shell: 'about' }),
  };

  const appMenu: MenuItemSpec[] = mac
    ? [
        {
          label: options.productName,
          submenu: [
            about,
            separator,
            { id: 'settings', label: 'Settings…', accelerator: 'Cmd+,', click: page('go.settings') },
            separator,
            { role: 'services' },
            separator,
            { role: 'hide' },
            { role: 'hideOthers' },
            { role: 'unhide' },
            separator,
            { role: 'quit' },
          ],
        },
      ]
    : [];

  const file: MenuItemSpec = {
    label: mac ? 'File' : '&File',
    submenu: [
      {
        id: 'sync-now',
        label: 'Sync Now',
        accelerator: SYNC_NOW_ACCELERATOR,
        click: () => options.run({ shell: 'syncNow' }),
      },
      separator,
      mac ? { role: 'close' } : { role: 'quit', label: 'Quit', accelerator: 'Ctrl+Q' },
    ],
  };

  const edit: MenuItemSpec = {
    label: mac ? 'Edit' : '&Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      separator,
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(mac ? [{ role: 'pasteAndMatchStyle' } as const] : []),
      { role: 'selectAll' },
      separator,
      { id: 'search', label: 'Search', ...(mac ? {} : pageKey('/')), click: page('search.focus') },
    ],
  };

  const go: MenuItemSpec = {
    label: mac ? 'Go' : '&Go',
    submenu: AREA_ITEMS.map((area) => ({
      id: area.action,
      label: area.label,
      ...pageKey(`CmdOrCtrl+${area.key}`),
      click: page(area.action),
    })),
  };

  const view: MenuItemSpec = {
    label: mac ? 'View' : '&View',
    submenu: [
      ...(options.isPackaged
        ? []
        : [{ role: 'reload' } as const, { role: 'toggleDevTools' } as const, separator]),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      separator,
      { role: 'togglefullscreen' },
    ],
  };

  const help: MenuItemSpec = {
    label: mac ? 'Help' : '&Help',
    submenu: [
      {
        id: 'shortcuts',
        label: 'Keyboard Shortcuts',
        ...(mac ? {} : pageKey('?')),
        click: page('help.shortcuts'),
      },
      ...(mac ? [] : [separator, about]),
    ],
  };

  return [...appMenu, file, edit, go, view, ...(mac ? [{ role: 'windowMenu' } as const] : []), help];
}
