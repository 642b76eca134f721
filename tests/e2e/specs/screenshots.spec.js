// Every screen in the light and the dark theme, into
// docs/screenshots/<screen>-<light|dark>.png, on a home with something to
// show: two servers, two concerns, two profiles (the one edited hides a
// few things, so hidden rows and their reasons show), failed calls in
// the ledger, and a tool in quarantine (the demo trusted, then run as its
// release 2, in which `search` says something new).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConnectPage } from '../pages/connect.js';
import { QuarantinePage } from '../pages/quarantine.js';
import { ServersPage } from '../pages/servers.js';
import { SCREENS, Shell } from '../pages/shell.js';
import { TasksPage } from '../pages/tasks.js';
import { ToolsPage } from '../pages/tools.js';
import { App } from '../support/app.js';
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
    const connect = new ConnectPage(app);
    for (const host of ['claude-desktop', 'cursor', 'vscode']) await connect.snippet(host);
  },
};

describe('Screenshots of every screen', () => {
  let home;

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
    const config = home.config();
    config.mcpServers.demo.args = ['demo-server', '--release', '2'];
    home.replaceConfig(config);
  });

  after(() => home?.remove());

  for (const theme of ['light', 'dark']) {
    test(`${theme}: servers, tools, labels, quarantine, profiles, tasks and connect`, async () => {
      const app = await App.launch(home, { theme });
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
      } finally {
        await app.quit();
      }
    });
  }
});
