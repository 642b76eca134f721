import {
  serverAdd,
  serverLogin,
  serverRemove,
  serverSetEnabled,
  serversImport,
  serversImportPreview,
  serversList,
  serversNewer,
  type Host,
  type ImportReport,
  type ServerRow,
} from '../backend';
import { Action, Loader } from '../request.svelte';
import { toNewServer, type ServerDraft } from './draft';
import { RegistryBrowser } from './registry.svelte';

/** The servers of config.json with their live state. */
export class ServersStore {
  rows = new Loader<ServerRow[]>([]);
  /** Remove and enable/disable, from the rows. */
  change = new Action();
  /** The add form. */
  adding = new Action();
  importer = new ServerImport(this);
  registry = new RegistryBrowser(this);

  /** Nothing configured: the built-in demo stands in. */
  onlyDemo = $derived(this.rows.value.length === 1 && this.rows.value[0].transport === 'builtin');

  /** Newer versions published for servers added from a registry, by key. */
  newer = $state.raw<Record<string, string>>({});

  async load(): Promise<boolean> {
    const ok = await this.rows.load(serversList);
    if (ok && this.rows.value.some((row) => row.origin)) {
      // A notice only: a registry that does not answer says nothing.
      serversNewer().then(
        (newer) => (this.newer = newer),
        () => {},
      );
    }
    return ok;
  }

  /** Adds the server of the form; its error (the form's or the shell's) stays on `adding`. */
  add(draft: ServerDraft): Promise<boolean> {
    return this.adding.run(async () => {
      this.rows.value = await serverAdd(toNewServer(draft), draft.keepSecrets);
    });
  }

  /** Signs in to `name` in the system browser; the rows follow with the shell's events. */
  signIn(name: string): Promise<boolean> {
    return this.change.run(async () => {
      await serverLogin(name);
      await this.load();
    });
  }

  remove(name: string): Promise<boolean> {
    return this.change.run(async () => {
      this.rows.value = await serverRemove(name);
    });
  }

  setEnabled(name: string, enabled: boolean): Promise<boolean> {
    return this.change.run(async () => {
      this.rows.value = await serverSetEnabled(name, enabled);
    });
  }
}

/** Importing a host's servers: a preview first, then the same import for real. */
export class ServerImport {
  host = $state<Host>('claude-desktop');
  /** A config file elsewhere than the host's usual place. */
  path = $state('');
  /** Keep the env and header values the servers bring out of config.json. */
  keepSecrets = $state(true);
  preview = new Loader<ImportReport | null>(null);
  /** What the import did, once done. */
  done = $state.raw<ImportReport | null>(null);
  committing = new Action();
  readonly #servers: ServersStore;

  constructor(servers: ServersStore) {
    this.#servers = servers;
  }

  #path(): string | undefined {
    return this.path.trim() || undefined;
  }

  async showPreview(): Promise<boolean> {
    const { host } = this;
    const path = this.#path();
    this.done = null;
    this.committing.clear();
    return this.preview.load(() => serversImportPreview(host, path), `${host} ${path}`);
  }

  async commit(): Promise<boolean> {
    const { host, keepSecrets } = this;
    const path = this.#path();
    const ok = await this.committing.run(async () => {
      this.done = await serversImport(host, path, keepSecrets);
      this.preview.value = null;
    });
    if (ok) await this.#servers.load();
    return ok;
  }

  /** Back to choosing a host. */
  reset(): void {
    this.preview.value = null;
    this.preview.error = null;
    this.done = null;
    this.committing.clear();
  }
}
