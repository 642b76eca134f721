// Every host (DESIGN §11) on the "Connect a host" screen: a temp host home
// (--host-home) with the real files of Claude Code, Codex, Cursor and Gemini
// CLI (crates/sieve-store/tests/fixtures/hosts, with their expect.json), a
// VS Code file cut short so it does not parse, and nothing of the other
// hosts. "Route all" moves each host's servers behind MCP Sieve into a
// profile named after it, its file left with the `sieve` entry and only what
// MCP Sieve cannot run (comments and other settings kept, the broken file
// untouched); the Profiles screen says which host uses which profile;
// another profile routes a host again; Unroute gives a host its servers back.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HostsPage } from '../pages/hosts.js';
import { ProfilesPage } from '../pages/profiles.js';
import { Shell } from '../pages/shell.js';
import { App } from '../support/app.js';
import { env, ROOT } from '../support/env.js';
import { demoServer, Home } from '../support/home.js';
import { until } from '../support/wait.js';

const FIXTURES = path.join(ROOT, 'crates', 'sieve-store', 'tests', 'fixtures', 'hosts');

/** Each host's fixture, and where the host keeps it under the host home (Linux). */
const FILES = {
  'claude-code': ['claude-code/.claude.json', '.claude.json'],
  codex: ['codex/config.toml', '.codex/config.toml'],
  cursor: ['cursor/mcp.json', '.cursor/mcp.json'],
  gemini: ['gemini/settings.json', '.gemini/settings.json'],
  vscode: ['vscode/mcp.json', '.config/Code/User/mcp.json'],
};
const ROUTABLE = ['claude-code', 'cursor', 'codex', 'gemini'];
const ABSENT = ['claude-desktop', 'windsurf', 'qwen', 'opencode', 'zed', 'lmstudio', 'kiro', 'cline', 'continue', 'goose'];
const TITLES = { 'claude-code': 'Claude Code', cursor: 'Cursor', codex: 'Codex CLI', gemini: 'Gemini CLI' };
/** The hosts whose file is JSON (with comments, for Gemini CLI). */
const JSON_HOSTS = ['claude-code', 'cursor', 'gemini'];
/** The secret values in the fixtures, which routing keeps out of config.json. */
const SECRETS = /ghp_fake|ctx7sk_fake|lin_fake/;

const fixture = (host) => readFileSync(path.join(FIXTURES, FILES[host][0]));
/** What the fixture's expect.json says routing does: `moved`, `left`, `kept` (text the file keeps). */
const expected = (host) =>
  JSON.parse(readFileSync(path.join(FIXTURES, path.dirname(FILES[host][0]), 'expect.json'), 'utf8'));

/** JSON with comments and trailing commas, as Gemini CLI and VS Code write it. */
function parseJsonc(text) {
  let plain = '';
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      plain += text.slice(i, end + 1);
      i = end;
    } else if (text.startsWith('//', i)) {
      i = text.indexOf('\n', i) - 1;
      if (i < 0) break;
    } else if (text.startsWith('/*', i)) {
      i = text.indexOf('*/', i) + 1;
    } else {
      plain += text[i];
    }
  }
  return JSON.parse(plain.replace(/,(\s*[}\]])/g, '$1'));
}

describe('Hosts on the Connect screen', () => {
  let home;
  let hostHome;
  let app;
  let shell;
  let hosts;
  let vscodeBytes;
  const file = (host) => path.join(hostHome, FILES[host][1]);
  const json = (host) => parseJsonc(readFileSync(file(host), 'utf8'));

  before(async () => {
    home = new Home({ servers: { demo: demoServer() } });
    hostHome = home.file('host-home');
    for (const host of Object.keys(FILES)) {
      mkdirSync(path.dirname(file(host)), { recursive: true });
      writeFileSync(file(host), fixture(host));
    }
    // Cut short, as a save interrupted halfway leaves it.
    const vscode = fixture('vscode').toString('utf8');
    writeFileSync(file('vscode'), vscode.slice(0, vscode.lastIndexOf('}')));
    vscodeBytes = readFileSync(file('vscode'));
    app = await App.launch(home, { hostHome });
    shell = new Shell(app);
    hosts = new HostsPage(app);
    await shell.open('connect');
  });

  after(async () => {
    await app?.quit();
    home?.remove();
  });

  test('hosts with a file are installed with their servers, the others absent, the broken file named', async () => {
    for (const host of ROUTABLE) {
      await hosts.stateWhen(host, 'installed');
      assert.ok(await hosts.canRoute(host), `${host} offers Route`);
    }
    const claude = await hosts.text('claude-code');
    assert.match(claude, /2 servers in its file: github and context7/, `Claude Code's row lists its servers: ${claude}`);
    assert.ok(claude.includes(file('claude-code')), `the row names the file: ${claude}`);
    const cursor = await hosts.text('cursor');
    assert.match(cursor, /3 servers in its file: linear, postgres and secret-api/, cursor);

    await hosts.stateWhen('vscode', 'installed');
    const vscode = await hosts.text('vscode');
    assert.match(vscode, /does not parse/, `VS Code's row says its file does not parse: ${vscode}`);
    assert.equal(await hosts.canRoute('vscode'), false, 'a file that does not parse offers no Route');

    for (const host of ABSENT) {
      assert.equal(await hosts.state(host), 'absent', `${host} has nothing here`);
    }
  });

  test('each row says whether the host defers MCP tools behind its own search, and offers search mode where not', async () => {
    const advice = async (host) => {
      const row = await hosts.row(host);
      await hosts.reveal(row);
      const line = await app.find(`host-tool-search-${host}`);
      return { offer: await line.getAttribute('data-offer-search'), text: await line.getText() };
    };
    const claude = await advice('claude-code');
    assert.equal(claude.offer, 'false', `Claude Code defers on its own: ${claude.text}`);
    assert.match(claude.text, /defers MCP tools behind its own tool search \(since 2\.1\.7\)/, claude.text);
    const gemini = await advice('gemini');
    assert.equal(gemini.offer, 'true', `Gemini CLI lists every tool: ${gemini.text}`);
    assert.match(gemini.text, /"disclosure": "search"/, gemini.text);
    const codex = await advice('codex');
    assert.equal(codex.offer, 'false', `Codex defers on its own: ${codex.text}`);
    assert.match(codex.text, /Codex CLI defers MCP tools behind its own tool search/, codex.text);
  });

  test("Codex's snippet is in Codex's own format, TOML", async () => {
    const snippet = await hosts.snippetText('codex');
    assert.match(snippet, /^\[mcp_servers\.sieve\]$/m, `a TOML table for the entry: ${snippet}`);
    assert.ok(snippet.includes(env.cli), `it runs the mcp-sieve beside the app: ${snippet}`);
    assert.match(snippet, /"serve", "--profile", "default"/, `for the profile being edited: ${snippet}`);
  });

  test('Route all routes every host found, each with a profile named after it', async () => {
    const summary = await hosts.routeAll();
    assert.match(summary, /Routed 4 hosts/, `the summary counts the hosts routed: ${summary}`);
    assert.match(summary, /VS Code was not routed: .*does not parse/, `and says why VS Code was not: ${summary}`);
    for (const host of ROUTABLE) {
      await hosts.stateWhen(host, 'routed');
      const text = await hosts.text(host);
      assert.match(text, new RegExp(`profile ${host}, over stdio`), `${host}'s row names its profile: ${text}`);
      assert.ok(await hosts.canRoute(host), `${host} can be routed again`);
    }
    const claude = await hosts.text('claude-code');
    assert.match(claude, /Moved 2 servers from its file behind MCP Sieve: github and context7/, claude);
    assert.match(claude, /2 secret values kept in the system keychain/, `its secrets are kept: ${claude}`);
    const cursor = await hosts.text('cursor');
    assert.match(cursor, /Left in its file, as MCP Sieve cannot run it: secret-api \(.*\$\{env:API_KEY\}/, cursor);
    assert.match(cursor, /1 more server in its file besides MCP Sieve's entry: secret-api/, cursor);
    assert.equal(await hosts.state('vscode'), 'installed', 'VS Code stays as it was');
  });

  test("each host's file has the sieve entry and what MCP Sieve cannot run, the rest kept; the broken one untouched", async () => {
    for (const host of ROUTABLE) {
      const text = readFileSync(file(host), 'utf8');
      for (const kept of expected(host).kept) {
        assert.ok(text.includes(kept), `${host}'s file keeps ${kept}:\n${text}`);
      }
    }
    for (const host of JSON_HOSTS) {
      const now = json(host);
      const before = parseJsonc(fixture(host).toString('utf8'));
      assert.deepEqual(
        Object.keys(now.mcpServers).sort(),
        ['sieve', ...expected(host).left].sort(),
        `${host}'s file lists sieve and what was left in it`,
      );
      const entry = now.mcpServers.sieve;
      assert.equal(entry.command, env.cli, `${host} runs the mcp-sieve beside the app`);
      assert.deepEqual(entry.args, ['--home', home.dir, 'serve', '--profile', host], `${host} gets its profile`);
      for (const left of expected(host).left) {
        assert.deepEqual(now.mcpServers[left], before.mcpServers[left], `${host}'s ${left} is as it was`);
      }
      delete now.mcpServers;
      delete before.mcpServers;
      assert.deepEqual(now, before, `${host}'s other settings are kept`);
    }

    const codex = readFileSync(file('codex'), 'utf8');
    assert.deepEqual(codex.match(/^\[mcp_servers\.[^\]]*\]/gm), ['[mcp_servers.sieve]'], `one server table: ${codex}`);
    assert.ok(codex.includes(`"serve", "--profile", "codex"`), codex);

    assert.ok(readFileSync(file('vscode')).equals(vscodeBytes), "VS Code's broken file is untouched, byte for byte");
  });

  test("config.json has the servers, each host's profile names them, and no secret is written out", async () => {
    const config = home.config();
    assert.doesNotMatch(readFileSync(home.configPath, 'utf8'), SECRETS, 'the values are kept in the keychain');
    for (const host of ROUTABLE) {
      const profile = home.profile(host);
      assert.ok(profile, `a profile named after ${host}`);
      const servers = profile.servers ?? [];
      const moved = expected(host).moved.length;
      assert.equal(servers.length, moved, `${host}'s profile has its ${moved} servers: ${JSON.stringify(profile)}`);
      for (const server of servers) {
        assert.ok(config.mcpServers[server], `config.json has ${host}'s server ${server}`);
      }
    }
    for (const server of ['github', 'context7', 'linear', 'postgres']) {
      assert.ok(config.mcpServers[server], `config.json has ${server}: ${Object.keys(config.mcpServers)}`);
    }
  });

  test('the Profiles screen says which host uses each profile', async () => {
    await shell.open('profiles');
    const profiles = new ProfilesPage(app);
    for (const host of ROUTABLE) {
      const card = await profiles.card(host);
      await until(async () => (await card.getText()).includes(`used by ${TITLES[host]}`), {
        what: `profile ${host} to say it is used by ${TITLES[host]}`,
      });
    }
    await shell.open('connect');
  });

  test('choosing another profile for a routed host routes it again with that one', async () => {
    await hosts.chooseProfile('gemini', 'default');
    const report = await hosts.route('gemini');
    assert.match(report, /Gemini CLI now goes through MCP Sieve with profile default\./, report);
    await until(async () => /profile default, over stdio/.test(await hosts.text('gemini')), {
      what: "Gemini CLI's row to name profile default",
    });
    assert.deepEqual(json('gemini').mcpServers.sieve.args.slice(-2), ['--profile', 'default']);
    assert.deepEqual(Object.keys(json('gemini').mcpServers), ['sieve'], 'still the single entry');
  });

  test('Unroute gives Cursor its servers back', async () => {
    const report = await hosts.unroute('cursor');
    assert.match(report, /Cursor has its 2 servers back in its file: linear and postgres/, report);
    await hosts.stateWhen('cursor', 'installed');
    assert.deepEqual(json('cursor'), parseJsonc(fixture('cursor').toString('utf8')), 'the file says what it did');
    assert.match(await hosts.text('cursor'), /3 servers in its file/);

    await shell.open('profiles');
    const card = await new ProfilesPage(app).card('cursor');
    await until(async () => !(await card.getText()).includes('used by'), {
      what: 'profile cursor to be used by no host',
    });
  });
});
