import { describe, expect, it } from 'vitest';
import { API_VERSION, MenuAction, type AppInfo } from '../../src-shared/ipc';
import { aboutBox } from '../../src-main/shell/about';
import { confirmed, externalLinkDecision, OPEN_BUTTON } from '../../src-main/shell/external-links';
import { AREA_ITEMS, menuTemplate, type MenuCommand, type MenuItemSpec } from '../../src-main/shell/menu';
import { createQuitSequence } from '../../src-main/shell/quit';

// The pure pieces the shell wires: the native menus, the About box, the external-link rule
// and the quit sequence.

function flatten(items: MenuItemSpec[]): MenuItemSpec[] {
  return items.flatMap((item) => [item, ...flatten(item.submenu ?? [])]);
}

function menu(platform: string, isPackaged = true) {
  const clicked: MenuCommand[] = [];
  const items = flatten(
    menuTemplate({ platform, productName: 'Satchel', isPackaged, run: (command) => clicked.push(command) }),
  );
  const byId = (id: string) => {
    const item = items.find((candidate) => candidate.id === id);
    if (!item) throw new Error(`no menu item ${id}`);
    return item;
  };
  return { items, byId, clicked };
}

describe('native menus', () => {
  it('shows Ctrl+1…8 for the areas and leaves the keys to the page on Windows and Linux', () => {
    for (const platform of ['linux', 'win32']) {
      const { byId, clicked } = menu(platform);
      for (const area of AREA_ITEMS) {
        const item = byId(area.action);
        expect(item).toMatchObject({
          label: area.label,
          accelerator: `CmdOrCtrl+${area.key}`,
          registerAccelerator: false,
        });
        item.click?.();
      }
      expect(clicked).toEqual(AREA_ITEMS.map((area) => ({ page: area.action })));
      expect(byId('search')).toMatchObject({ accelerator: '/', registerAccelerator: false });
      expect(byId('shortcuts')).toMatchObject({ accelerator: '?', registerAccelerator: false });
    }
    expect(AREA_ITEMS.map((area) => area.key)).toEqual(['1', '2', '3', '8', '4', '5', '6', '7']);
  });

  it('on macOS lets Cmd+1…8 go through the menu and keeps bare / and ? off it', () => {
    const { byId, items } = menu('darwin');
    expect(byId('go.sync')).toMatchObject({ accelerator: 'CmdOrCtrl+5' });
    expect(byId('go.sync').registerAccelerator).toBeUndefined();
    expect(byId('search').accelerator).toBeUndefined();
    expect(byId('shortcuts').accelerator).toBeUndefined();
    expect(byId('settings').accelerator).toBe('Cmd+,');
    // The app menu with About, and the edit roles macOS needs for copy and paste in fields.
    const roles = items.map((item) => item.role).filter(Boolean);
    expect(roles).toEqual(
      expect.arrayContaining(['quit', 'copy', 'paste', 'selectAll', 'undo', 'windowMenu']),
    );
    expect(byId('about').label).toBe('About Satchel');
  });

  it('asks the page only for page actions and runs About and Sync Now itself', () => {
    const { byId, clicked, items } = menu('linux');
    byId('about').click?.();
    byId('sync-now').click?.();
    byId('search').click?.();
    expect(clicked).toEqual([{ shell: 'about' }, { shell: 'syncNow' }, { page: 'search.focus' }]);
    expect(byId('sync-now').accelerator).toBe('F5');
    for (const command of clicked)
      if ('page' in command) expect(MenuAction.safeParse(command.page).success).toBe(true);
    expect(items.some((item) => item.role === 'toggleDevTools')).toBe(false); // packaged
    expect(menu('linux', false).items.some((item) => item.role === 'toggleDevTools')).toBe(true);
  });

  it('never uses one shortcut for two items', () => {
    for (const platform of ['linux', 'win32', 'darwin']) {
      const accelerators = menu(platform)
        .items.map((item) => item.accelerator)
        .filter((accelerator): accelerator is string => accelerator !== undefined);
      expect(new Set(accelerators).size).toBe(accelerators.length);
    }
  });
});

describe('About box', () => {
  it('names the app version and the spend API version it speaks, and nothing secret', () => {
    const info: AppInfo = {
      name: 'Satchel',
      version: '0.1.0',
      apiVersion: API_VERSION,
      dataDir: '/home/ada/.config/Satchel',
      schemaVersion: 3,
      platform: 'linux',
    };
    const box = aboutBox(info, { electron: '45.4.1', chrome: '142.0.0.0', node: '22.20.0' });
    expect(box.message).toBe('Satchel 0.1.0');
    expect(box.detail).toContain('spend API 1.44.0');
    expect(box.detail).toContain('Electron 45.4.1');
    expect(box.detail).toContain('/home/ada/.config/Satchel');
    expect(API_VERSION).toBe('1.44.0');
  });
});

describe('external links', () => {
  it('opens only https links, and only after a confirmation that names the real host', () => {
    const decision = externalLinkDecision('https://help.example.com/satchel?page=1');
    expect(decision).toMatchObject({ open: true, url: 'https://help.example.com/satchel?page=1' });
    if (!decision.open) throw new Error('expected an https link to be offered');
    expect(decision.confirm.message).toContain('help.example.com');
    expect(decision.confirm.defaultId).toBe(decision.confirm.cancelId); // Enter does not open
    expect(confirmed(OPEN_BUTTON)).toBe(true);
    expect(confirmed(decision.confirm.cancelId)).toBe(false);

    const lookalike = externalLinkDecision('https://pаypal.example/'); // Cyrillic а
    expect(lookalike.open && lookalike.confirm.message).toContain('xn--');

    for (const url of [
      'http://help.example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'https://user:secret@example.com/',
      'satchel-file://profile/file',
      'data:text/html,<script>1</script>',
      'not a url',
    ])
      expect(externalLinkDecision(url), url).toEqual({ open: false });
  });
});

describe('quit sequence', () => {
  it('holds the first quit until closing is done, then lets the next one through', async () => {
    let finish!: () => void;
    const close = () => new Promise<void>((resolve) => (finish = resolve));
    const sequence = createQuitSequence({ close });
    let quits = 0;
    expect(sequence.willQuit(() => (quits += 1))).toBe(false);
    expect(sequence.willQuit(() => (quits += 1))).toBe(false); // a second quit while closing
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(quits).toBe(0);
    finish();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(quits).toBe(1);
    expect(sequence.outcome()).toBe('closed');
    expect(sequence.willQuit(() => (quits += 1))).toBe(true);
  });

  it('quits anyway after the deadline or when closing fails', async () => {
    const hung = createQuitSequence({ close: () => new Promise<void>(() => undefined), deadlineMs: 30 });
    const errors: unknown[] = [];
    const failing = createQuitSequence({
      close: () => Promise.reject(new Error('disk gone')),
      onError: (error) => errors.push(error),
    });
    const quit = { hung: 0, failing: 0 };
    hung.willQuit(() => (quit.hung += 1));
    failing.willQuit(() => (quit.failing += 1));
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(quit).toEqual({ hung: 1, failing: 1 });
    expect(hung.outcome()).toBe('timed-out');
    expect(failing.outcome()).toBe('closed');
    expect(errors).toHaveLength(1);
  });
});
