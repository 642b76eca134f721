// The "Connect a host" screen: the exact snippet a host needs (and it
// works when a host runs it), written into Claude Desktop's config with
// the previous file kept beside it.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConnectPage } from '../pages/connect.js';
import { Shell } from '../pages/shell.js';
import { App } from '../support/app.js';
import { env } from '../support/env.js';
import { Home } from '../support/home.js';
import { StdioHost } from '../support/host.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

/** What Claude Desktop's file holds before the app writes into it. */
const CLAUDE_BEFORE = {
  mcpServers: { notes: { command: 'npx', args: ['-y', '@example/notes-mcp'] } },
  globalShortcut: 'Ctrl+Space',
};

describe('Connect screen', () => {
  let home;
  let app;
  let connect;
  let claudeBytes;
  let snippet;

  before(async () => {
    home = new Home();
    // The app's XDG_CONFIG_HOME is the home's, so Claude Desktop's usual
    // file (api::hosts::default_path) is a temp file with a server in it.
    mkdirSync(path.dirname(home.claudeDesktopConfig), { recursive: true });
    writeFileSync(home.claudeDesktopConfig, `${JSON.stringify(CLAUDE_BEFORE, null, 2)}\n`);
    claudeBytes = readFileSync(home.claudeDesktopConfig);
    app = await App.launch(home);
    connect = new ConnectPage(app);
    await new Shell(app).open('connect');
  });

  after(async () => {
    await app?.quit();
    home?.remove();
  });

  test("Claude Desktop's snippet starts mcp-sieve serve on this home and profile, and works", async () => {
    snippet = await connect.snippet('claude-desktop');
    const entry = snippet.mcpServers?.sieve;
    assert.ok(entry, `the snippet has mcpServers.sieve: ${JSON.stringify(snippet)}`);
    assert.equal(entry.command, env.cli, 'the command is the mcp-sieve beside the app');
    assert.deepEqual(entry.args, ['--home', home.dir, 'serve', '--profile', 'default']);

    // Run it as Claude Desktop would.
    const host = await StdioHost.spawn(entry.command, entry.args);
    try {
      const tools = await until(
        async () => {
          const list = await host.tools();
          return list.some((t) => t.name === 'demo__echo') ? list : null;
        },
        { timeout: LAUNCH_TIMEOUT, what: 'the snippet proxy to list the demo tools' },
      );
      assert.ok(tools.length >= 40, `the snippet's proxy lists the servers' tools (${tools.length})`);
    } finally {
      await host.stop();
    }
  });

  test("writing into Claude Desktop's usual file keeps its servers and a backup beside it", async () => {
    const report = await connect.write('claude-desktop');
    assert.match(report, /Written to/, `the screen reports the write: ${report}`);
    assert.ok(report.includes(home.claudeDesktopConfig), `it names the file: ${report}`);

    const written = JSON.parse(readFileSync(home.claudeDesktopConfig, 'utf8'));
    assert.deepEqual(written.mcpServers.sieve, snippet.mcpServers.sieve, 'the entry is the snippet');
    assert.deepEqual(written.mcpServers.notes, CLAUDE_BEFORE.mcpServers.notes, 'the other server stays');
    assert.equal(written.globalShortcut, CLAUDE_BEFORE.globalShortcut, 'other settings stay');

    const folder = path.dirname(home.claudeDesktopConfig);
    const backups = readdirSync(folder).filter((name) => name !== 'claude_desktop_config.json');
    assert.equal(backups.length, 1, `one backup beside it: ${backups}`);
    const backup = path.join(folder, backups[0]);
    assert.ok(report.includes(backup), `the screen names the backup: ${report}`);
    assert.ok(readFileSync(backup).equals(claudeBytes), 'the backup is the file as it was');
  });

  test("Cursor's snippet is written into a new file named in the path field, without a backup", async () => {
    const file = home.file('cursor', 'mcp.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const cursor = await connect.snippet('cursor');
    const report = await connect.write('cursor', file);
    assert.match(report, /Written to/, `the screen reports the write: ${report}`);
    assert.doesNotMatch(report, /kept as/, 'there was no file to keep');
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), cursor, 'the new file is the snippet');
    assert.deepEqual(readdirSync(path.dirname(file)), ['mcp.json'], 'and nothing beside it');
    assert.ok(existsSync(home.claudeDesktopConfig), "Claude Desktop's file is untouched by it");
  });
});
