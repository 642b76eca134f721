import { beforeEach, expect, it } from 'vitest';
import type { HostStatus } from '../backend';
import { aHostStatus, aRouteReport, type FakeBackend } from '../backend/fake';
import { aSettings, aSnippet, fakeApp } from '../fakeApp';
import { HOSTS } from '../hosts';
import type { Stores } from '../stores';
import { OWN_PROFILE } from './store.svelte';

let fake: FakeBackend;
let stores: Stores;

beforeEach(async () => {
  ({ fake, stores } = fakeApp());
  await stores.connect.load();
});

const host = (name: string) => stores.connect.hosts.find((connection) => connection.host === name)!;

/** `hosts_list` with every host absent but those given. */
function hostsAre(...given: (Partial<HostStatus> & { host: HostStatus['host'] })[]): void {
  fake.on('hosts_list', () =>
    HOSTS.map(({ host, title }) => aHostStatus({ title, ...given.find((status) => status.host === host), host })),
  );
}

it("shows each host its snippet for the profile being edited, as the shell writes it in the host's format", () => {
  expect(host('vscode').snippet.value).toBe(aSnippet('vscode', 'default'));
  expect(JSON.parse(host('vscode').snippet.value!)).toEqual({
    servers: { sieve: { command: '/usr/bin/mcp-sieve', args: ['serve', '--profile', 'default'] } },
  });
  expect(host('codex').snippet.value).toContain('[mcp_servers.sieve]');
  expect(stores.connect.hosts).toHaveLength(15);
  expect(stores.connect.info.value?.httpUrl).toBe('http://127.0.0.1:8765/mcp');
});

it("shows the shell's reason when a host has no HTTP entry, and not the stdio snippet", async () => {
  fake.on('host_snippet', ({ host, profile }) => {
    if (host === 'claude-desktop') {
      throw { code: 'invalid', message: 'Claude Desktop does not read HTTP entries; use the stdio entry' };
    }
    return aSnippet(host, profile);
  });
  await host('claude-desktop').setTransport('http');
  expect(fake.argsOf('host_snippet').at(-1)).toEqual({ host: 'claude-desktop', transport: 'http', profile: 'default' });
  expect(host('claude-desktop').snippet.error).toBe('Claude Desktop does not read HTTP entries; use the stdio entry');
  expect(host('claude-desktop').snippet.value).toBeNull();
});

it('writes into the host file and says where, or that it was there already, then reads the hosts', async () => {
  fake.on('host_write', ({ path }) => ({ path: path ?? '/home/me/.cursor/mcp.json', backup: null, changed: false }));
  const cursor = host('cursor');
  fake.reset();
  await cursor.write();
  expect(fake.argsOf('host_write')).toEqual([
    { host: 'cursor', transport: 'stdio', profile: 'default', path: undefined },
  ]);
  expect(cursor.written).toEqual({ path: '/home/me/.cursor/mcp.json', backup: null, changed: false });
  expect(fake.count('hosts_list'), 'a written entry may route the host').toBe(1);

  cursor.path = '/tmp/mcp.json';
  fake.fail('host_write', { code: 'broken_file', message: '/tmp/mcp.json does not parse, so it was left as it is' });
  expect(await cursor.write()).toBe(false);
  expect(fake.argsOf('host_write').at(-1)?.path).toBe('/tmp/mcp.json');
  expect(cursor.writing.error).toBe('/tmp/mcp.json does not parse, so it was left as it is');
});

it('shows the settings and writes the close-to-tray switch through the shell', async () => {
  expect(stores.connect.settings.value?.closeToTray).toBe(true);
  fake.on('settings_set_close_to_tray', ({ on }) => aSettings({ closeToTray: on }));
  expect(await stores.connect.setCloseToTray(false)).toBe(true);
  expect(fake.argsOf('settings_set_close_to_tray')).toEqual([{ on: false }]);
  expect(stores.connect.settings.value?.closeToTray).toBe(false);

  fake.fail('settings_set_close_to_tray', { code: 'broken_file', message: 'config.json:3:1: expected a value' });
  expect(await stores.connect.setCloseToTray(true)).toBe(false);
  expect(stores.connect.setting.error).toBe('config.json:3:1: expected a value');
  expect(stores.connect.settings.value?.closeToTray).toBe(false);
});

it('lists every host in order, those on this machine first, with the routed ones showing their profile', async () => {
  const { connect } = stores;
  await stores.profiles.loadList();
  expect(connect.rows.map((row) => row.host)).toEqual(HOSTS.map(({ host }) => host));
  expect(connect.present.map((row) => [row.host, row.state])).toEqual([
    ['claude-code', 'installed'],
    ['codex', 'routed'],
  ]);
  expect(connect.absent).toHaveLength(13);
  expect(connect.row('claude-code').status?.servers).toEqual(['github', 'notes']);
  // Codex has its own profile, named after it.
  expect(connect.row('codex').profile).toBe(OWN_PROFILE);
  expect(connect.row('claude-code').profile).toBe(OWN_PROFILE);
  expect(connect.profileNames).toEqual(['default', 'work']);
});

it('routes a host with its own profile, says what moved, and reads the hosts and the profiles again', async () => {
  const claude = stores.connect.row('claude-code');
  fake.on('host_route', ({ host }) => aRouteReport(host, ['github', 'notes'], { path: '/home/me/.claude.json' }));
  hostsAre(
    { host: 'claude-code', state: 'routed', profile: 'claude-code', transport: 'stdio' },
    { host: 'codex', state: 'routed', profile: 'codex', transport: 'stdio' },
  );
  fake.reset();
  expect(await claude.route()).toBe(true);

  expect(fake.argsOf('host_route')).toEqual([
    { host: 'claude-code', transport: 'stdio', profile: null, keepSecrets: true },
  ]);
  expect(claude.outcome?.[0]).toBe(
    'Claude Code now goes through MCP Sieve with profile claude-code, made now from the servers it had.',
  );
  expect(claude.outcome?.[1]).toBe('Moved 2 servers from its file behind MCP Sieve: github and notes.');
  expect(fake.count('hosts_list')).toBe(1);
  expect(fake.count('profiles_list'), 'a profile was made, and it is used by a host now').toBe(1);
  expect(claude.state).toBe('routed');
  expect(claude.profile).toBe(OWN_PROFILE);
});

it('routes again with another profile, or back to its own by name, over HTTP where the host takes it', async () => {
  const codex = stores.connect.row('codex');
  fake.on('host_route', ({ host, profile }) => aRouteReport(host, [], { profile: profile ?? host }));
  codex.profile = 'work';
  codex.transport = 'http';
  stores.connect.keepSecrets = false;
  await codex.route();
  // Its own once routed is asked for by name: no name keeps the profile it has.
  codex.profile = OWN_PROFILE;
  await codex.route();
  expect(fake.argsOf('host_route')).toEqual([
    { host: 'codex', transport: 'http', profile: 'work', keepSecrets: false },
    { host: 'codex', transport: 'http', profile: 'codex', keepSecrets: false },
  ]);

  // Claude Desktop starts local servers only.
  const desktop = stores.connect.row('claude-desktop');
  desktop.transport = 'http';
  await desktop.route();
  expect(fake.argsOf('host_route').at(-1)).toMatchObject({ host: 'claude-desktop', transport: 'stdio' });
});

it("keeps the person's choice over a reload, and follows a routed host's profile when it changes", async () => {
  const codex = stores.connect.row('codex');
  codex.profile = 'work';
  await stores.connect.loadHosts();
  expect(codex.profile, 'the same status does not undo a choice not yet applied').toBe('work');

  hostsAre({ host: 'codex', state: 'routed', profile: 'default', transport: 'http' });
  await stores.connect.loadHosts();
  expect(codex.profile).toBe('default');
  expect(codex.transport).toBe('http');
});

it("keeps a failed route's sentence on the row and shows no outcome", async () => {
  const claude = stores.connect.row('claude-code');
  fake.fail('host_route', { code: 'broken_file', message: '/home/me/.claude.json:3:5: expected a value' });
  fake.reset();
  expect(await claude.route()).toBe(false);
  expect(claude.action.error).toBe('/home/me/.claude.json:3:5: expected a value');
  expect(claude.outcome).toBeNull();
  expect(fake.count('hosts_list')).toBe(1);
});

it('routes every host on this machine, each row saying what it did or why not, and a summary', async () => {
  fake.on('hosts_route_all', () => [
    { host: 'claude-code', report: aRouteReport('claude-code', ['github', 'notes']) },
    { host: 'codex', report: aRouteReport('codex', [], { profileCreated: false }) },
    { host: 'vscode', error: { code: 'broken_file', message: 'mcp.json:1:2: expected a string.' } },
  ]);
  stores.connect.allTransport = 'http';
  fake.reset();
  expect(await stores.connect.routeAll()).toBe(true);
  expect(fake.argsOf('hosts_route_all')).toEqual([{ transport: 'http', keepSecrets: true }]);
  expect(stores.connect.allOutcome).toEqual([
    'Routed 2 hosts through MCP Sieve: Claude Code (profile claude-code) and Codex CLI (profile codex).',
    'VS Code was not routed: mcp.json:1:2: expected a string.',
  ]);
  expect(stores.connect.row('claude-code').outcome?.[0]).toMatch(/^Claude Code now goes through MCP Sieve/);
  expect(stores.connect.row('vscode').action.error).toBe('mcp.json:1:2: expected a string.');
  expect(stores.connect.row('vscode').outcome).toBeNull();
  expect(fake.count('hosts_list')).toBe(1);
  expect(fake.count('profiles_list')).toBe(1);
});

it('unroutes a host and says which servers it has back', async () => {
  const codex = stores.connect.row('codex');
  fake.on('host_unroute', ({ host }) => ({
    host,
    path: '/home/me/.codex/config.toml',
    restored: ['docs'],
    kept: [],
    recorded: true,
    write: { path: '/home/me/.codex/config.toml', backup: '/home/me/.codex/config.toml.bak', changed: true },
  }));
  hostsAre({ host: 'codex', state: 'installed', servers: ['docs'] });
  expect(await codex.unroute()).toBe(true);
  expect(fake.argsOf('host_unroute')).toEqual([{ host: 'codex' }]);
  expect(codex.outcome).toEqual([
    "Codex CLI has its 1 server back in its file: docs; MCP Sieve's entry is out.",
    'Restart Codex CLI to load it.',
  ]);
  expect(codex.state).toBe('installed');
});

it('offers no route for a host whose file does not parse', async () => {
  hostsAre({ host: 'vscode', state: 'installed', problem: 'mcp.json:1:2: expected a string' });
  await stores.connect.loadHosts();
  expect(stores.connect.row('vscode').canRoute).toBe(false);
  expect(stores.connect.row('cursor').canRoute).toBe(true);
});
