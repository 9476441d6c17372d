import type { SatchelApi } from '../src-shared/ipc';

declare global {
  interface Window {
    /** The app's only door to the main process, provided by the preload (or a test bridge). */
    readonly satchel: SatchelApi;
  }
}
