// Every screen in the light and the dark theme, into
// docs/screenshots/<screen>-<light|dark>.png, on a home with something to
// show: two servers, two concerns, two profiles (the one edited hides a
// few things, so hidden rows and their reasons show), failed calls in
// the ledger, a tool in quarantine (the demo trusted, then run as its
// release 2, in which `search` says something new), an overlay rule, and
// a host home (--host-home) with the real files of Claude Code, Cursor,
// Codex CLI and Gemini CLI (crates/sieve-store/tests/fixtures/hosts). The
// Connect screen is taken twice: the hosts as found, then after "Route
// all" (connect-routed-<theme>.png), whose changes are undone before the
// next theme.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HostsPage } from '../pages/hosts.js';
import { QuarantinePage } from '../pages/quarantine.js';
import { ServersPage } from '../pages/servers.js';
import { SCREENS, Shell } from '../pages/shell.js';
import { TasksPage } from '../pages/tasks.js';
import { ToolsPage } from '../pages/tools.js';
import { App, testIdPrefix } from '../support/app.js';
import { ROOT } from '../support/env.js';
import { Home, SECURITY } from '../support/home.js';
import { StdioHost } from '../support/host.js';
import { screenshot } from '../support/screenshots.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

const COST = {
  name: 'cost',
  description: 'Cost of running the tool',
  values: ['minimal', 'moderate', 'high'],
  default: 'moderate',
};

const FIXTURES = path.join(ROOT, 'crates', 'sieve-store', 'tests', 'fixtures', 'hosts');

/** The hosts on the Connect screen: each one's fixture, and where the host keeps it under the host home. */
const HOST_FILES = {
  'claude-code': ['claude-code/.claude.json', '.claude.json'],
  cursor: ['cursor/mcp.json', '.cursor/mcp.json'],
  codex: ['codex/config.toml', '.codex/config.toml'],
  gemini: ['gemini/settings.json', '.gemini/settings.json'],
};
const HOSTS = Object.keys(HOST_FILES);

/** Puts the hosts' files, as the fixtures have them, under `hostHome`. */
function writeHostFiles(hostHome) {
  for (const [fixture, file] of Object.values(HOST_FILES)) {
    const target = path.join(hostHome, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, readFileSync(path.join(FIXTURES, fixture)));
  }
}

/** What each screen waits for before its picture is taken. */
const READY = {
  async servers(app) {
    const servers = new ServersPage(app);
    await servers.rowWhen('demo', 'up', LAUNCH_TIMEOUT);
    await servers.rowWhen('everything', 'up', LAUNCH_TIMEOUT);
  },
  async tools(app) {
    // A hidden row with its reason is on the first page.
    await new ToolsPage(app).rowWhen('demo__delete_file', false, { search: false });
  },
  async labels(app) {
    await app.find('concern-def-security');
    await app.find('concern-def-cost');
    // The rule counts server-everything's primitives once it is listed.
    await until(
      async () => {
        const rows = await app.driver.findElements(testIdPrefix('overlay-row-'));
        return rows.length === 1 && /\d+ primitives/.test(await rows[0].getText());
      },
      { what: 'the rule for everything__* to count what it matches' },
    );
  },
  async quarantine(app) {
    await new QuarantinePage(app).itemWhen('demo__search', false, LAUNCH_TIMEOUT);
  },
  async profiles(app) {
    await app.find('concern-select-security');
    await app.find('concern-select-cost');
  },
  async tasks(app) {
    const tasks = new TasksPage(app);
    const ids = await until(async () => {
      const shown = await tasks.ids();
      return shown.length >= 2 ? shown : null;
    }, { what: 'the seeded ledger entries' });
    await tasks.detail(ids[0]);
  },
  async connect(app) {
    const hosts = new HostsPage(app);
    for (const host of HOSTS) await hosts.stateWhen(host, 'installed');
    const all = await app.find('hosts-route-all');
    await until(async () => (await all.getText()).includes(`Route all ${HOSTS.length} hosts`), {
      what: `hosts-route-all to count ${HOSTS.length} hosts`,
    });
  },
};

describe('Screenshots of every screen', () => {
  let home;
  let hostHome;
  /** config.json as the screens are shown, put back after each Route all. */
  let config;

  before(async () => {
    home = new Home({
      concerns: [SECURITY, COST],
      profiles: {
        default: {
          description: 'Everyday work, nothing destructive',
          tools: { deny: ['demo__delete_*'] },
          groups: { none: ['billing'] },
          tags: { none: ['experimental'] },
        },
        reviewer: {
          description: 'Read-only tools for code review',
          tags: { all: ['read-only'] },
          concerns: { security: 'high' },
        },
      },
    });
    // Two failed calls for the Tasks screen.
    const host = await StdioHost.start(home, 'default');
    try {
      await until(async () => (await host.tools()).some((t) => t.name === 'demo__get_issue'), {
        timeout: LAUNCH_TIMEOUT,
        what: 'the demo server behind the host',
      });
      for (const id of [404, 999]) {
        const result = await host.result('tools/call', { name: 'demo__get_issue', arguments: { id } });
        assert.equal(result.isError, true, `get_issue #${id} fails`);
      }
      await until(() => home.approvals()?.servers?.demo, { what: "the demo's first listing in approvals.json" });
    } finally {
      await host.stop();
    }
    config = home.config();
    config.mcpServers.demo.args = ['demo-server', '--release', '2'];
    // A rule for the Labels screen, out of sight of the others.
    config.overlays = [{ match: 'everything__*', concerns: { cost: 'minimal' } }];
    home.replaceConfig(config);
    hostHome = home.file('host-home');
  });

  after(() => home?.remove());

  for (const theme of ['light', 'dark']) {
    test(`${theme}: servers, tools, labels, quarantine, profiles, tasks and connect`, async () => {
      writeHostFiles(hostHome);
      const app = await App.launch(home, { theme, hostHome });
      try {
        const dark = await app.driver.executeScript('return matchMedia("(prefers-color-scheme: dark)").matches');
        assert.equal(dark, theme === 'dark', `WebKit reports prefers-color-scheme: ${theme}`);
        const shell = new Shell(app);
        await shell.meterWhen((m) => m.toolsTotal > 40, 'both servers');
        let previous = null;
        for (const screen of SCREENS) {
          await shell.open(screen);
          await READY[screen](app);
          const { file, png } = await screenshot(app, `${screen}-${theme}`);
          // A stale frame would repeat the screen before.
          assert.ok(!previous?.equals(png), `${file} differs from the screen before it`);
          previous = png;
          console.log(`screenshot ${file}`);
        }

        // Every host routed, each with a profile of its own.
        await shell.open('connect');
        const hosts = new HostsPage(app);
        const summary = await hosts.routeAll();
        assert.match(summary, new RegExp(`Routed ${HOSTS.length} hosts`), summary);
        for (const host of HOSTS) await hosts.stateWhen(host, 'routed');
        const { file, png } = await screenshot(app, `connect-routed-${theme}`);
        assert.ok(!previous.equals(png), `${file} differs from the hosts before routing`);
        console.log(`screenshot ${file}`);
      } finally {
        await app.quit();
        // As before routing: the next theme routes the hosts' files again.
        home.replaceConfig(config);
        for (const host of HOSTS) rmSync(home.profilePath(host), { force: true });
        rmSync(path.join(home.dir, 'hosts.json'), { force: true });
      }
    });
  }
});
