import { beforeEach, expect, it } from 'vitest';
import type { FakeBackend } from '../backend/fake';
import { aSettings, fakeApp } from '../fakeApp';
import type { Stores } from '../stores';

let fake: FakeBackend;
let stores: Stores;

beforeEach(async () => {
  ({ fake, stores } = fakeApp());
  await stores.connect.load();
});

const host = (name: string) => stores.connect.hosts.find((connection) => connection.host === name)!;

it('shows each host its snippet for the profile being edited, as pretty JSON', () => {
  expect(host('vscode').snippet.value).toBe(
    JSON.stringify(
      { servers: { sieve: { command: '/usr/bin/mcp-sieve', args: ['serve', '--profile', 'default'] } } },
      null,
      2,
    ),
  );
  expect(stores.connect.info.value?.httpUrl).toBe('http://127.0.0.1:8765/mcp');
});

it("shows the shell's reason when a host has no HTTP entry, and not the stdio snippet", async () => {
  fake.on('host_snippet', ({ host }) => {
    if (host === 'claude-desktop') {
      throw { code: 'invalid', message: 'Claude Desktop does not read HTTP entries; use the stdio entry' };
    }
    return {};
  });
  await host('claude-desktop').setTransport('http');
  expect(fake.argsOf('host_snippet').at(-1)).toEqual({ host: 'claude-desktop', transport: 'http', profile: 'default' });
  expect(host('claude-desktop').snippet.error).toBe('Claude Desktop does not read HTTP entries; use the stdio entry');
  expect(host('claude-desktop').snippet.value).toBeNull();
});

it('writes into the host file and says where, or that it was there already', async () => {
  fake.on('host_write', ({ path }) => ({ path: path ?? '/home/me/.cursor/mcp.json', backup: null, changed: false }));
  const cursor = host('cursor');
  await cursor.write();
  expect(fake.argsOf('host_write')).toEqual([
    { host: 'cursor', transport: 'stdio', profile: 'default', path: undefined },
  ]);
  expect(cursor.written).toEqual({ path: '/home/me/.cursor/mcp.json', backup: null, changed: false });

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
