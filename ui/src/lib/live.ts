// Keeping the screens current: the shell reports every change of the
// files, the servers and the ledger as `sieve://changed`.

import { onChanged, type ChangeEvent } from './backend';
import type { Stores } from './stores';

/**
 * Runs `task` now, or once more after the run in progress when asked
 * during it: a burst of events (25 servers starting) makes two loads, not 25.
 */
export function coalesce(task: () => Promise<unknown>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await task();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };
}

export class Live {
  readonly #stores: Stores;
  readonly #catalog: () => Promise<void>;
  readonly #config: () => Promise<void>;
  readonly #profileList: () => Promise<void>;
  readonly #editing: () => Promise<void>;
  readonly #tasks: () => Promise<void>;
  readonly #audit: () => Promise<void>;

  constructor(stores: Stores) {
    this.#stores = stores;
    const { servers, tools, labels, meter, quarantine, profiles, tasks, audit, connect } = stores;
    // A listing that brings a new or changed tool records it in
    // approvals.json before the catalog change is reported. The labels
    // count what the servers list.
    this.#catalog = coalesce(() =>
      Promise.all([servers.load(), tools.load(), labels.load(), meter.load(), quarantine.load()]),
    );
    // Profiles are checked against the config's concerns, so their
    // validity can change with it; so can the active profile and the settings.
    this.#config = coalesce(() =>
      Promise.all([profiles.loadConcerns(), profiles.loadList(), connect.loadSettings()]),
    );
    this.#profileList = coalesce(() => profiles.loadList());
    this.#editing = coalesce(() => profiles.reloadEditing());
    this.#tasks = coalesce(() => tasks.refresh());
    // The audit is in the ledger's database: its writes are reported as the tasks'.
    this.#audit = coalesce(() => audit.refresh());
  }

  /** Reloads what `event` may have changed. */
  async apply(event: ChangeEvent): Promise<void> {
    switch (event.what) {
      case 'catalog':
      case 'status':
      // A decision changes rows (and their quarantine badges) even when
      // hosts see the same list, so no catalog change follows.
      case 'approvals':
        await this.#catalog();
        break;
      case 'config':
        await Promise.all([this.#catalog(), this.#config()]);
        break;
      case 'profile': {
        const editing = event.name === undefined || event.name === this.#stores.profiles.editing;
        await Promise.all([this.#profileList(), editing ? this.#editing() : undefined]);
        break;
      }
      case 'tasks':
        await Promise.all([this.#tasks(), this.#audit()]);
        break;
    }
  }

  /** Follows the shell's events until the returned function is called. */
  start(): Promise<() => void> {
    return onChanged((event) => void this.apply(event));
  }
}
