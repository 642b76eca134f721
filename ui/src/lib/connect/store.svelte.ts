import {
  appInfo,
  hostRoute,
  hostSnippet,
  hostsList,
  hostsRouteAll,
  hostUnroute,
  hostWrite,
  settingsSetCloseToTray,
  settingsShow,
  type AppInfo,
  type Host,
  type HostStatus,
  type HostTransport,
  type HostWrite,
  type Settings,
} from '../backend';
import { HOSTS } from '../hosts';
import type { ProfilesStore } from '../profiles/store.svelte';
import { Action, Loader } from '../request.svelte';
import { describeRoute, describeRouteAll, describeUnroute } from './report';

/** The profile picker's value for "its own profile, named after the host". */
export const OWN_PROFILE = '';

/** One host's entry for MCP Sieve under the profile being edited, and its writer: connecting by hand. */
export class HostConnection {
  transport = $state<HostTransport>('stdio');
  /** The snippet as the person pastes it, in the host's format (JSON, TOML or YAML). */
  snippet = new Loader<string | null>(null);
  /** A config file elsewhere than the host's usual place. */
  path = $state('');
  writing = new Action();
  written = $state.raw<HostWrite | null>(null);
  readonly host: Host;
  readonly title: string;
  readonly #profiles: ProfilesStore;
  readonly #wrote: () => Promise<unknown>;

  /** `wrote` runs after a write: the host may be routed now. */
  constructor(host: Host, title: string, profiles: ProfilesStore, wrote: () => Promise<unknown> = async () => {}) {
    this.host = host;
    this.title = title;
    this.#profiles = profiles;
    this.#wrote = wrote;
  }

  /** The profile the entry serves: the one being edited. */
  get profile(): string {
    return this.#profiles.editing;
  }

  load(): Promise<boolean> {
    const { host, transport } = this;
    const profile = this.#profiles.editing;
    return this.snippet.load(() => hostSnippet(host, transport, profile), `${transport} ${profile}`);
  }

  setTransport(transport: HostTransport): Promise<boolean> {
    this.transport = transport;
    this.written = null;
    this.writing.clear();
    return this.load();
  }

  /** Puts the entry into the host's config file. */
  async write(): Promise<boolean> {
    const { host, transport } = this;
    const profile = this.#profiles.editing;
    const path = this.path.trim() || undefined;
    const done = await this.writing.run(async () => {
      this.written = await hostWrite(host, transport, profile, path);
    });
    if (done) await this.#wrote();
    return done;
  }
}

/**
 * A host on the Connect screen: where it stands, the profile and transport
 * chosen for routing it, and what the last action on it did.
 */
export class HostRow {
  /** As `hosts_list` last said; null until it has. */
  status = $state.raw<HostStatus | null>(null);
  /** A profile's name, or {@link OWN_PROFILE}. */
  profile = $state(OWN_PROFILE);
  transport = $state<HostTransport>('stdio');
  /** Route and unroute; the error of the last one. */
  action = new Action();
  /** What the last action did, in sentences. */
  outcome = $state.raw<string[] | null>(null);
  readonly host: Host;
  readonly title: string;
  readonly connection: HostConnection;
  readonly #connect: ConnectStore;
  /** The profile and transport last taken from the status, so a reload keeps the person's choice. */
  #synced = '';

  constructor(host: Host, title: string, connect: ConnectStore, profiles: ProfilesStore) {
    this.host = host;
    this.title = title;
    this.#connect = connect;
    this.connection = new HostConnection(host, title, profiles, () => connect.reload());
  }

  get state() {
    return this.status?.state ?? 'absent';
  }

  get takesHttp(): boolean {
    return this.status?.takesHttp ?? true;
  }

  /** Its file does not parse: it is left alone, so it cannot be routed. */
  get canRoute(): boolean {
    return this.status !== null && !this.status.problem;
  }

  /** Takes what `hosts_list` says; the pickers follow a routed host's profile and transport when they change. */
  apply(status: HostStatus): void {
    this.status = status;
    if (status.state !== 'routed') {
      this.#synced = '';
      return;
    }
    const synced = `${status.profile} ${status.transport}`;
    if (synced === this.#synced) return;
    this.#synced = synced;
    this.profile = status.profile === this.host || !status.profile ? OWN_PROFILE : status.profile;
    this.transport = status.transport === 'http' && status.takesHttp ? 'http' : 'stdio';
  }

  /**
   * The profile to ask for: a named one as it is; its own by the host's
   * name once routed (routing again without a name keeps the profile it
   * has), else none, so the library makes it from what the host had.
   */
  #chosenProfile(): string | null {
    if (this.profile !== OWN_PROFILE) return this.profile;
    return this.state === 'routed' ? this.host : null;
  }

  /** Routes the host (again) with the chosen profile and transport. */
  async route(): Promise<boolean> {
    const { host, title } = this;
    const transport = this.takesHttp ? this.transport : 'stdio';
    const profile = this.#chosenProfile();
    const keepSecrets = this.#connect.keepSecrets;
    const done = await this.action.run(async () => {
      this.outcome = null;
      this.outcome = describeRoute(await hostRoute(host, transport, profile, keepSecrets), title);
    });
    await this.#connect.reload();
    return done;
  }

  /** Gives the host back the servers it had. */
  async unroute(): Promise<boolean> {
    const { host, title } = this;
    const done = await this.action.run(async () => {
      this.outcome = null;
      this.outcome = describeUnroute(await hostUnroute(host), title);
    });
    await this.#connect.reload();
    return done;
  }
}

/** Connecting hosts: each host's state and routing, the app's HTTP endpoint, each host's snippet. */
export class ConnectStore {
  info = new Loader<AppInfo | null>(null);
  /** `config.json`'s settings: the active profile, closing into the tray. */
  settings = new Loader<Settings | null>(null);
  /** A change of the settings, its error kept here. */
  setting = new Action();
  /** Every host, in the order a person is offered them. */
  rows: HostRow[];
  /** Where the hosts stand, as last read. */
  list = new Loader<HostStatus[]>([]);
  /** Routing keeps the env and header values of the servers it moves in the system keychain. */
  keepSecrets = $state(true);
  /** How "Route all" connects the hosts (stdio for those that take nothing else). */
  allTransport = $state<HostTransport>('stdio');
  routingAll = new Action();
  /** What "Route all" did, in sentences. */
  allOutcome = $state.raw<string[] | null>(null);
  readonly #profiles: ProfilesStore;

  constructor(profiles: ProfilesStore) {
    this.#profiles = profiles;
    this.rows = HOSTS.map(({ host, title }) => new HostRow(host, title, this, profiles));
  }

  /** The hosts' snippets and writers (connecting by hand). */
  get hosts(): HostConnection[] {
    return this.rows.map((row) => row.connection);
  }

  /** The hosts on this machine (installed or routed), in order. */
  get present(): HostRow[] {
    return this.rows.filter((row) => row.state !== 'absent');
  }

  /** The hosts not found here. */
  get absent(): HostRow[] {
    return this.rows.filter((row) => row.state === 'absent');
  }

  /** The profiles a host can be routed with. */
  get profileNames(): string[] {
    return this.#profiles.list.value.map((summary) => summary.name);
  }

  row(host: Host): HostRow {
    return this.rows.find((row) => row.host === host)!;
  }

  async load(): Promise<void> {
    await Promise.all([this.info.load(appInfo), this.loadSettings(), this.loadHosts(), this.loadSnippets()]);
  }

  async loadHosts(): Promise<boolean> {
    const loaded = await this.list.load(hostsList);
    for (const status of this.list.value) this.rows.find((row) => row.host === status.host)?.apply(status);
    return loaded;
  }

  /**
   * After routing: where the hosts stand, and the profiles (one may be
   * new, and which hosts use each changed).
   */
  async reload(): Promise<void> {
    await Promise.all([this.loadHosts(), this.#profiles.loadList()]);
  }

  /** Routes every host on this machine, each with its own profile. */
  async routeAll(): Promise<boolean> {
    const { allTransport, keepSecrets } = this;
    const done = await this.routingAll.run(async () => {
      this.allOutcome = null;
      const results = await hostsRouteAll(allTransport, keepSecrets);
      for (const { host, report, error } of results) {
        const row = this.row(host);
        row.action.error = error?.message ?? null;
        row.outcome = report ? describeRoute(report, row.title) : null;
      }
      this.allOutcome = describeRouteAll(results);
    });
    await this.reload();
    return done;
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
