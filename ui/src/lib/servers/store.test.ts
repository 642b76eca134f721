import { beforeEach, describe, expect, it } from 'vitest';
import { aServer, type FakeBackend } from '../backend/fake';
import { fakeApp } from '../fakeApp';
import type { Stores } from '../stores';
import { emptyDraft } from './draft';

let fake: FakeBackend;
let stores: Stores;

beforeEach(() => {
  ({ fake, stores } = fakeApp());
});

it('says when the built-in demo stands in for an empty config', async () => {
  fake.on('servers_list', () => [aServer({ name: 'demo', transport: 'builtin', target: 'the built-in demo server' })]);
  await stores.servers.load();
  expect(stores.servers.onlyDemo).toBe(true);

  fake.on('servers_list', () => [aServer({ name: 'github' })]);
  await stores.servers.load();
  expect(stores.servers.onlyDemo).toBe(false);
});

describe('adding a server', () => {
  it('sends the form as a server and shows the rows the shell returns', async () => {
    fake.on('server_add', ({ server }) => [aServer({ name: server.name, state: 'connecting', env: ['TOKEN'] })]);
    const ok = await stores.servers.add({
      ...emptyDraft(),
      name: 'github',
      command: 'npx',
      args: '-y\nserver-github',
      env: [{ key: 'TOKEN', value: 'secret' }],
    });
    expect(ok).toBe(true);
    expect(fake.argsOf('server_add')).toEqual([
      {
        server: {
          name: 'github',
          transport: 'stdio',
          command: 'npx',
          args: ['-y', 'server-github'],
          env: { TOKEN: 'secret' },
        },
        keepSecrets: true,
      },
    ]);
    expect(stores.servers.rows.value.map((row) => [row.name, row.state])).toEqual([['github', 'connecting']]);
  });

  it('keeps an incomplete form from the shell, with what to fill in', async () => {
    expect(await stores.servers.add({ ...emptyDraft(), name: 'github' })).toBe(false);
    expect(stores.servers.adding.error).toBe('Give the command that starts the server.');
    expect(fake.count('server_add')).toBe(0);
  });

  it("keeps the shell's refusal as the form's error", async () => {
    fake.fail('server_add', { code: 'exists', message: 'a server "github" exists; choose another name', field: 'name' });
    expect(await stores.servers.add({ ...emptyDraft(), name: 'github', command: 'npx' })).toBe(false);
    expect(stores.servers.adding.error).toBe('a server "github" exists; choose another name');
  });
});

it('removes and disables servers by name', async () => {
  fake
    .on('server_remove', () => [])
    .on('server_set_enabled', ({ name, enabled }) => [aServer({ name, enabled, state: 'disabled' })]);
  await stores.servers.setEnabled('github', false);
  expect(fake.argsOf('server_set_enabled')).toEqual([{ name: 'github', enabled: false }]);
  expect(stores.servers.rows.value[0].state).toBe('disabled');
  await stores.servers.remove('github');
  expect(fake.argsOf('server_remove')).toEqual([{ name: 'github' }]);
  expect(stores.servers.rows.value).toEqual([]);
});

describe('importing a host', () => {
  const report = {
    source: 'cursor' as const,
    file: '/home/me/.cursor/mcp.json',
    added: ['linear'],
    renamed: [{ from: 'github', to: 'github-cursor' }],
    skipped: [{ name: 'sieve', reason: 'self', message: 'it runs mcp-sieve itself' }],
    secrets: [{ server: 'linear', section: 'headers' as const, key: 'Authorization' }],
  };

  it('previews, then commits the same import and reloads the servers', async () => {
    fake.on('servers_import_preview', () => report).on('servers_import', () => report);
    const importer = stores.servers.importer;
    importer.host = 'cursor';
    importer.path = '  ';

    await importer.showPreview();
    expect(fake.argsOf('servers_import_preview')).toEqual([{ host: 'cursor', path: undefined }]);
    expect(importer.preview.value).toEqual(report);
    expect(fake.count('servers_import'), 'a preview writes nothing').toBe(0);

    fake.reset();
    await importer.commit();
    expect(fake.argsOf('servers_import')).toEqual([{ host: 'cursor', path: undefined, keepSecrets: true }]);
    expect(importer.done).toEqual(report);
    expect(importer.preview.value).toBeNull();
    expect(fake.count('servers_list')).toBe(1);
  });

  it('keeps the values in config.json when the person unticks the box', async () => {
    fake.on('servers_import', () => report);
    const importer = stores.servers.importer;
    importer.keepSecrets = false;
    await importer.commit();
    expect(fake.argsOf('servers_import')).toEqual([{ host: 'claude-desktop', path: undefined, keepSecrets: false }]);
  });

  it('passes a chosen file, and shows why it cannot be read', async () => {
    fake.fail('servers_import_preview', { code: 'io', message: 'cannot read /tmp/nope.json: No such file or directory' });
    const importer = stores.servers.importer;
    importer.path = '/tmp/nope.json';
    await importer.showPreview();
    expect(fake.argsOf('servers_import_preview')).toEqual([{ host: 'claude-desktop', path: '/tmp/nope.json' }]);
    expect(importer.preview.error).toBe('cannot read /tmp/nope.json: No such file or directory');
  });
});

describe('signing in', () => {
  it('signs in to the server and reloads the rows', async () => {
    fake
      .on('server_login', ({ name }) => ({ server: name, url: 'https://example.test/mcp', location: 'the system keychain' }))
      .on('servers_list', () => [aServer({ name: 'remote', state: 'up' })]);
    expect(await stores.servers.signIn('remote')).toBe(true);
    expect(fake.argsOf('server_login')).toEqual([{ name: 'remote' }]);
    expect(stores.servers.rows.value.map((row) => row.state)).toEqual(['up']);
  });

  it('shows why a sign-in failed', async () => {
    fake.fail('server_login', { code: 'upstream', message: 'the sign-in did not come back within 5 minutes' });
    expect(await stores.servers.signIn('remote')).toBe(false);
    expect(stores.servers.change.error).toContain('did not come back');
  });
});
