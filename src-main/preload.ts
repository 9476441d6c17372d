import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { createSatchelApi } from '../src-shared/bridge';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, isEventName } from '../src-shared/ipc';

// Exposes exactly the contract of src-shared/ipc.ts as window.satchel, nothing else:
// no ipcRenderer, no channel names, no Node.
contextBridge.exposeInMainWorld(
  'satchel',
  createSatchelApi({
    invoke: (command, input) => ipcRenderer.invoke(IPC_INVOKE_CHANNEL, command, input),
    subscribe(listener) {
      const forward = (_event: IpcRendererEvent, name: unknown, payload: unknown) => {
        if (isEventName(name)) listener(name, payload);
      };
      ipcRenderer.on(IPC_EVENT_CHANNEL, forward);
      return () => ipcRenderer.off(IPC_EVENT_CHANNEL, forward);
    },
  }),
);
