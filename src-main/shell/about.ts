import type { AppInfo } from '../../src-shared/ipc';

/**
 * The About box: the app's version and the spend API version it speaks, plus what support
 * asks for first. Nothing secret: no connection, no key, no address of an organisation.
 */
export interface AboutBox {
  type: 'info';
  title: string;
  message: string;
  detail: string;
  buttons: string[];
}

export function aboutBox(
  info: AppInfo,
  runtime: { electron: string; chrome: string; node: string },
): AboutBox {
  return {
    type: 'info',
    title: `About ${info.name}`,
    message: `${info.name} ${info.version}`,
    detail: [
      `Speaks the spend API ${info.apiVersion}.`,
      `Cache schema ${info.schemaVersion}.`,
      `Electron ${runtime.electron}, Chromium ${runtime.chrome}, Node ${runtime.node} on ${info.platform}.`,
      `Data folder: ${info.dataDir}`,
    ].join('\n'),
    buttons: ['OK'],
  };
}
