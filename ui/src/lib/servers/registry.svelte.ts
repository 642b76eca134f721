import {
  registryAdd,
  registryPrepare,
  registryShow,
  registrySearch,
  type RegistryFound,
  type RegistryPrepared,
  type RegistryRequest,
  type RegistryShown,
} from '../backend';
import { Action, Loader } from '../request.svelte';
import type { ServersStore } from './store.svelte';

/**
 * Adding a server from an MCP registry: search, pick one (its versions,
 * packages, remotes and the values it asks for), see the command it will
 * run, confirm. Nothing is written before the confirmation.
 */
export class RegistryBrowser {
  text = $state('');
  results = new Loader<RegistryFound[]>([]);
  /** The server being added, once picked. */
  shown = new Loader<RegistryShown | null>(null);
  /** The version chosen; '' is the latest. */
  version = $state('');
  /** A key other than the short one made from the name. */
  key = $state('');
  /** The values typed into the form, by name. */
  values = $state<Record<string, string>>({});
  /** What adding will run, once reviewed. */
  prepared = $state.raw<RegistryPrepared | null>(null);
  reviewing = new Action();
  adding = new Action();
  /** The key of the server just added. */
  added = $state<string | null>(null);
  readonly #servers: ServersStore;

  constructor(servers: ServersStore) {
    this.#servers = servers;
  }

  search(): Promise<boolean> {
    const text = this.text;
    return this.results.load(async () => (await registrySearch(text)).servers);
  }

  /** Opens `name`'s form (at the version chosen, else its latest). */
  pick(name: string, version = ''): Promise<boolean> {
    this.version = version;
    this.prepared = null;
    this.added = null;
    this.reviewing.clear();
    if (this.shown.value?.entry.name !== name) this.values = {};
    return this.shown.load(() => registryShow(name, version || undefined));
  }

  /** Any change to the form hides the command reviewed before it. */
  setValue(name: string, value: string): void {
    this.values = { ...this.values, [name]: value };
    this.prepared = null;
  }

  request(): RegistryRequest | null {
    const shown = this.shown.value;
    if (!shown) return null;
    const request: RegistryRequest = {
      name: shown.entry.name,
      version: this.version || undefined,
      as: this.key.trim() || undefined,
      env: {},
      headers: {},
      args: {},
    };
    for (const asked of shown.asked) {
      const value = this.values[asked.name];
      if (value === undefined || value === '') continue;
      const section = asked.section === 'env' ? request.env : asked.section === 'header' ? request.headers : request.args;
      section[asked.name] = value;
    }
    return request;
  }

  /** Shows what adding will write and run; a missing value is named. */
  review(): Promise<boolean> {
    const request = this.request();
    return this.reviewing.run(async () => {
      if (!request) return;
      this.prepared = await registryPrepare(request);
    });
  }

  /** Adds the reviewed server; the rows follow. */
  confirm(): Promise<boolean> {
    const request = this.request();
    const key = this.prepared?.key ?? null;
    return this.adding.run(async () => {
      if (!request) return;
      this.#servers.rows.value = await registryAdd(request);
      this.added = key;
      this.prepared = null;
      this.shown.value = null;
      this.values = {};
    });
  }
}
