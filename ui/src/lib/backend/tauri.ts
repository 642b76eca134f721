import { invoke, isTauri } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import type { Backend } from './commands';
import type { ChangeEvent } from './types';

const NOT_IN_APP =
  'This page talks to the MCP Sieve desktop app; open it from the app rather than in a browser.';

/** The shell of the desktop app, over Tauri's IPC. */
export const tauriBackend: Backend = {
  invoke(command, args) {
    // Outside the app Tauri's globals are missing and invoke fails with a
    // TypeError nobody could act on.
    if (!isTauri()) return Promise.reject({ code: 'io', message: NOT_IN_APP });
    return invoke(command, args);
  },
  async listen(handler) {
    if (!isTauri()) return () => {};
    return listen<ChangeEvent>('sieve://changed', (event) => handler(event.payload));
  },
};
