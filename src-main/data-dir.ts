import os from 'node:os';
import path from 'node:path';

/**
 * Where Satchel keeps its data when no folder is given: the same folder Electron's
 * app.getPath('userData') gives the app, so the CLI and the app share connections and caches.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Satchel');
  if (platform === 'win32')
    return path.join(env['APPDATA'] ?? path.join(home, 'AppData', 'Roaming'), 'Satchel');
  return path.join(env['XDG_CONFIG_HOME'] ?? path.join(home, '.config'), 'Satchel');
}
