import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSatchelApi, unwrap } from '../../src-shared/bridge';
import { AppError } from '../../src-shared/errors';
import { AppInfo, type EventName, type Notice } from '../../src-shared/ipc';
import { createCore } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { defaultMigrationsDir, shippedSchemaVersion } from '../../src-main/store/migrations';
import packageJson from '../../package.json';
import { useTempDirs } from '../helpers/temp-dir';

const tempDir = useTempDirs();

function setup() {
  const dataDir = path.join(tempDir(), 'data');
  const core = createCore({ dataDir, clock: () => new Date('2026-11-22T09:30:00Z') });
  const handlers = createHandlers(core);
  return { core, handlers, dataDir };
}

describe('core and handler table', () => {
  it('creates the data folder and answers app.info with the real version and schema', async () => {
    const { handlers, dataDir } = setup();
    const result = await dispatch(handlers, 'app.info', {});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const info = AppInfo.parse(result.value);
    expect(info).toMatchObject({
      name: 'Satchel',
      version: packageJson.version,
      apiVersion: '1.44.0',
      dataDir,
    });
    expect(info.schemaVersion).toBe(shippedSchemaVersion(defaultMigrationsDir()));
    expect(info.schemaVersion).toBeGreaterThan(0);
    expect(existsSync(dataDir)).toBe(true);
  });

  it('says why it cannot start when its data folder cannot be made', () => {
    const inTheWay = path.join(tempDir(), 'Satchel');
    writeFileSync(inTheWay, 'not a folder');
    expect(() => createCore({ dataDir: inTheWay })).toThrow(
      expect.objectContaining({
        code: 'INTERNAL',
        message: `Satchel cannot use its data folder (${inTheWay}): a file of that name is in the way. Fix that and start Satchel again.`,
      }),
    );
  });

  it('refuses input that does not match the command schema and names the field', async () => {
    const { handlers } = setup();
    const result = await dispatch(handlers, 'app.info', { surprise: 1 });
    expect(result).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
    const notAnObject = await dispatch(handlers, 'app.info', 'drop table');
    expect(notAnObject).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('refuses commands that are not in the contract', async () => {
    const { handlers } = setup();
    for (const name of ['app.nope', '__proto__', 'constructor', 42, null]) {
      const result = await dispatch(handlers, name, {});
      expect(result).toMatchObject({ ok: false, error: { code: 'UNKNOWN_COMMAND' } });
    }
  });

  it('turns an unexpected failure into a generic error without internal details', async () => {
    const { handlers } = setup();
    const broken = {
      ...handlers,
      'app.info': () => {
        throw new Error('ENOENT /secret/path token=abc');
      },
    };
    const result = await dispatch(broken, 'app.info', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(JSON.stringify(result)).not.toContain('secret');
  });

  it('pushes validated events to subscribers and refuses malformed payloads', () => {
    const { core } = setup();
    const seen: Array<[EventName, unknown]> = [];
    const stop = core.events.subscribe((name, payload) => seen.push([name, payload]));
    core.notify('info', 'Sync finished');
    expect(seen).toEqual([
      ['app.notice', { level: 'info', message: 'Sync finished', at: '2026-11-22T09:30:00.000Z' }],
    ]);
    expect(() =>
      core.events.emit('app.notice', { level: 'loud', message: '' } as unknown as Notice),
    ).toThrow();
    stop();
    core.notify('info', 'after unsubscribe');
    expect(seen).toHaveLength(1);
  });
});

describe('window.satchel bridge over the real handler table', () => {
  function bridged() {
    const { core, handlers, dataDir } = setup();
    const api = createSatchelApi({
      invoke: (command, input) => dispatch(handlers, command, input),
      subscribe: (listener) => core.events.subscribe(listener),
    });
    return { core, api, dataDir };
  }

  it('answers app.info through the same bridge code the preload uses', async () => {
    const { api, dataDir } = bridged();
    const info = unwrap(await api.invoke('app.info', {}));
    expect(info.dataDir).toBe(dataDir);
  });

  it('keeps the error code and field across the bridge', async () => {
    const { api } = bridged();
    const result = await api.invoke('app.info', { extra: true } as unknown as Record<string, never>);
    expect(result.ok).toBe(false);
    expect(() => unwrap(result)).toThrow(AppError);
    const unknown = await api.invoke('shell.exec' as 'app.info', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'UNKNOWN_COMMAND' } });
  });

  it('delivers events to listeners and stops after unsubscribe', () => {
    const { core, api } = bridged();
    const messages: string[] = [];
    const stop = api.on('app.notice', (notice) => messages.push(notice.message));
    core.notify('warning', 'Offline');
    stop();
    core.notify('warning', 'ignored');
    expect(messages).toEqual(['Offline']);
    expect(() => api.on('not.an.event' as 'app.notice', () => undefined)).toThrow(/Unknown event/);
  });

  it('exposes nothing but invoke and on, frozen', () => {
    const { api } = bridged();
    expect(Object.keys(api).sort()).toEqual(['invoke', 'on']);
    expect(Object.isFrozen(api)).toBe(true);
  });
});
