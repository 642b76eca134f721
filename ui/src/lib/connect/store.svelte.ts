import {
  appInfo,
  hostSnippet,
  hostWrite,
  settingsSetCloseToTray,
  settingsShow,
  type AppInfo,
  type Host,
  type HostTransport,
  type HostWrite,
  type Settings,
} from '../backend';
import { HOSTS } from '../hosts';
import type { ProfilesStore } from '../profiles/store.svelte';
import { Action, Loader } from '../request.svelte';

/** One host's entry for MCP Sieve under the profile being edited, and its writer. */
export class HostConnection {
  transport = $state<HostTransport>('stdio');
  /** The snippet, pretty-printed as the person pastes it. */
  snippet = new Loader<string | null>(null);
  /** A config file elsewhere than the host's usual place. */
  path = $state('');
  writing = new Action();
  written = $state.raw<HostWrite | null>(null);
  readonly host: Host;
  readonly title: string;
  readonly #profiles: ProfilesStore;

  constructor(host: Host, title: string, profiles: ProfilesStore) {
    this.host = host;
    this.title = title;
    this.#profiles = profiles;
  }

  load(): Promise<boolean> {
    const { host, transport } = this;
    const profile = this.#profiles.editing;
    return this.snippet.load(
      async () => JSON.stringify(await hostSnippet(host, transport, profile), null, 2),
      `${transport} ${profile}`,
    );
  }

  setTransport(transport: HostTransport): Promise<boolean> {
    this.transport = transport;
    this.written = null;
    this.writing.clear();
    return this.load();
  }

  /** Puts the entry into the host's config file. */
  write(): Promise<boolean> {
    const { host, transport } = this;
    const profile = this.#profiles.editing;
    const path = this.path.trim() || undefined;
    return this.writing.run(async () => {
      this.written = await hostWrite(host, transport, profile, path);
    });
  }
}

/** Connecting a host: the app's HTTP endpoint and each host's snippet. */
export class ConnectStore {
  info = new Loader<AppInfo | null>(null);
  /** `config.json`'s settings: the active profile, closing into the tray. */
  settings = new Loader<Settings | null>(null);
  /** A change of the settings, its error kept here. */
  setting = new Action();
  hosts: HostConnection[];

  constructor(profiles: ProfilesStore) {
    this.hosts = HOSTS.map(({ host, title }) => new HostConnection(host, title, profiles));
  }

  async load(): Promise<void> {
    await Promise.all([this.info.load(appInfo), this.loadSettings(), this.loadSnippets()]);
  }

  loadSettings(): Promise<boolean> {
    return this.settings.load(settingsShow);
  }

  /** Whether closing the window keeps the app (and its proxy) in the tray. */
  setCloseToTray(on: boolean): Promise<boolean> {
    return this.setting.run(async () => {
      this.settings.value = await settingsSetCloseToTray(on);
    });
  }

  async loadSnippets(): Promise<void> {
    await Promise.all(this.hosts.map((connection) => connection.load()));
  }
}
