// The stores of the app over a fake shell, for the stores' tests. Every
// command has a plain answer; a test replaces the ones it is about.

import { setBackend, type Settings } from './backend';
import { aHostStatus, aLabelsView, aReport, aView, FakeBackend } from './backend/fake';
import { HOSTS } from './hosts';
import { createStores, type Stores } from './stores';

/** Noon, 1 May 2026, local time: what "today" is in the tests. */
export const NOW = new Date(2026, 4, 1, 12, 0, 0);

/** `config.json`'s settings as the shell reports them, defaults filled in. */
export function aSettings(overrides: Partial<Settings> = {}): Settings {
  return {
    separator: '__',
    taskRetentionDays: 30,
    callTimeoutSeconds: 600,
    activeProfile: 'default',
    closeToTray: true,
    quarantine: true,
    ...overrides,
  };
}

export function fakeApp(): { fake: FakeBackend; stores: Stores } {
  const fake = new FakeBackend()
    .on('app_info', () => ({
      home: '/home/me/.config/mcp-sieve',
      httpUrl: 'http://127.0.0.1:8765/mcp',
      token: 'secret-token',
      binary: '/usr/bin/mcp-sieve',
    }))
    .on('settings_show', () => aSettings())
    .on('start_notices', () => [])
    .on('profiles_list', () => [
      { name: 'default', description: '', valid: true, active: true },
      { name: 'work', description: 'Everyday work', valid: true, active: false },
    ])
    .on('profile_show', () => aView())
    .on('concern_definitions', () => [])
    .on('labels_view', () => aLabelsView())
    .on('catalog_rows', () => [])
    .on('token_report', ({ profile }) => aReport({ profile }))
    .on('tool_set_override', () => null)
    .on('tool_try', () => ({ record: { taskId: 't-0', status: 'completed' } as never, answer: {} }))
    .on('servers_list', () => [])
    .on('quarantine_list', () => [])
    .on('tasks_list', () => ({ tasks: [], nextCursor: null }))
    .on('audit_list', () => ({ calls: [], nextCursor: null }))
    .on('host_snippet', ({ host, profile }) => aSnippet(host, profile))
    // Claude Code with two servers, Codex routed, every other host absent.
    .on('hosts_list', () =>
      HOSTS.map(({ host, title }) =>
        host === 'claude-code'
          ? aHostStatus({ host, title, state: 'installed', path: '/home/me/.claude.json', servers: ['github', 'notes'] })
          : host === 'codex'
            ? aHostStatus({
                host,
                title,
                state: 'routed',
                path: '/home/me/.codex/config.toml',
                profile: 'codex',
                transport: 'stdio',
              })
            : aHostStatus({ host, title }),
      ),
    );
  setBackend(fake);
  return { fake, stores: createStores(() => NOW) };
}

/** MCP Sieve's snippet for `host` as the shell renders it: TOML for Codex, JSON for the JSON hosts. */
export function aSnippet(host: string, profile: string): string {
  if (host === 'codex') {
    const args = `["serve", "--profile", "${profile}"]`;
    return `[mcp_servers.sieve]\ncommand = "/usr/bin/mcp-sieve"\nargs = ${args}\n`;
  }
  const entry = { sieve: { command: '/usr/bin/mcp-sieve', args: ['serve', '--profile', profile] } };
  return `${JSON.stringify({ [host === 'vscode' ? 'servers' : 'mcpServers']: entry }, null, 2)}\n`;
}
