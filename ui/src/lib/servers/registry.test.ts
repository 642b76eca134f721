import { beforeEach, expect, it } from 'vitest';
import { aServer, type FakeBackend } from '../backend/fake';
import type { RegistryShown } from '../backend';
import { fakeApp } from '../fakeApp';
import type { Stores } from '../stores';

let fake: FakeBackend;
let stores: Stores;

beforeEach(() => {
  ({ fake, stores } = fakeApp());
});

const apify: RegistryShown = {
  registry: 'https://registry.modelcontextprotocol.io',
  entry: {
    name: 'com.apify/apify-mcp-server',
    description: 'Extract data from any website',
    version: '0.17.4',
    remotes: [{ type: 'streamable-http', url: 'https://mcp.apify.com/' }],
  },
  versions: ['0.17.4', '0.17.3'],
  latest: '0.17.4',
  source: { kind: 'remote', index: 0 },
  asked: [{ section: 'header', name: 'Authorization', description: 'Apify API token', required: true, secret: true }],
};

it('searches, reviews the command and adds only once confirmed', async () => {
  const browser = stores.servers.registry;
  fake.on('registry_search', () => ({
    registry: apify.registry,
    servers: [{ name: apify.entry.name, description: '', version: '0.17.4', packages: [], remotes: [] }],
  }));
  browser.text = 'apify';
  await browser.search();
  expect(fake.argsOf('registry_search')).toEqual([{ text: 'apify' }]);
  expect(browser.results.value.map((f) => f.name)).toEqual(['com.apify/apify-mcp-server']);

  fake.on('registry_show', () => apify);
  await browser.pick('com.apify/apify-mcp-server');
  browser.setValue('Authorization', 'Bearer t');
  fake.on('registry_prepare', () => ({
    registry: apify.registry,
    name: apify.entry.name,
    version: '0.17.4',
    key: 'apify-mcp-server',
    command: "https://mcp.apify.com/ with header 'Authorization: (secret)'",
    secrets: ['Authorization'],
  }));
  expect(await browser.review()).toBe(true);
  const request = {
    name: 'com.apify/apify-mcp-server',
    version: undefined,
    as: undefined,
    env: {},
    headers: { Authorization: 'Bearer t' },
    args: {},
  };
  expect(fake.argsOf('registry_prepare')).toEqual([{ request }]);
  expect(fake.count('registry_add'), 'reviewing writes nothing').toBe(0);
  expect(browser.prepared?.key).toBe('apify-mcp-server');

  // A change to the form hides the command reviewed before it.
  browser.setValue('Authorization', 'Bearer u');
  expect(browser.prepared).toBeNull();
  await browser.review();

  fake.on('registry_add', () => [aServer({ name: 'apify-mcp-server', transport: 'http' })]);
  expect(await browser.confirm()).toBe(true);
  expect(fake.argsOf('registry_add')).toEqual([{ request: { ...request, headers: { Authorization: 'Bearer u' } } }]);
  expect(stores.servers.rows.value.map((r) => r.name)).toEqual(['apify-mcp-server']);
  expect(browser.added).toBe('apify-mcp-server');
});

it('keeps the shell\'s sentence when the registry cannot be reached', async () => {
  const browser = stores.servers.registry;
  fake.fail('registry_search', {
    code: 'upstream',
    message: 'the registry https://registry.modelcontextprotocol.io cannot be reached (dns error); check the network connection',
  });
  browser.text = 'x';
  expect(await browser.search()).toBe(false);
  expect(browser.results.error).toContain('cannot be reached');
});

it('asks for newer versions only when a server came from a registry, and a failure says nothing', async () => {
  fake.on('servers_list', () => [aServer({ name: 'github' })]).on('servers_newer', () => ({ github: '2.0.0' }));
  await stores.servers.load();
  expect(fake.count('servers_newer'), 'no server has an origin').toBe(0);

  const origin = { registry: 'https://registry.modelcontextprotocol.io', name: 'io.github.github/github-mcp-server', version: '1.0.0' };
  fake.on('servers_list', () => [aServer({ name: 'github', origin })]);
  await stores.servers.load();
  await expect.poll(() => stores.servers.newer).toEqual({ github: '2.0.0' });

  fake.fail('servers_newer', { code: 'upstream', message: 'cannot be reached' });
  expect(await stores.servers.load()).toBe(true);
  expect(stores.servers.rows.error).toBeNull();
});
