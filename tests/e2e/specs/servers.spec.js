// The Servers screen: the servers of config.json with their live state, and
// a Claude Desktop file's server imported with a preview first.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ServersPage } from '../pages/servers.js';
import { Shell } from '../pages/shell.js';
import { App } from '../support/app.js';
import { env } from '../support/env.js';
import { Home } from '../support/home.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

describe('Servers screen', () => {
  let home;
  let app;
  let shell;
  let servers;

  before(async () => {
    home = new Home();
    app = await App.launch(home);
    shell = new Shell(app);
    servers = new ServersPage(app);
    await shell.open('servers');
  });

  after(async () => {
    await app?.quit();
    home?.remove();
  });

  test('each server of config.json has a row that comes up', async () => {
    const demo = await servers.rowWhen('demo', 'up', LAUNCH_TIMEOUT);
    assert.match(demo, /40 tools/, `the demo lists its 40 tools: ${demo}`);
    const everything = await servers.rowWhen('everything', 'up', LAUNCH_TIMEOUT);
    assert.match(everything, /\d+ tools/, `server-everything's row counts its tools: ${everything}`);
  });

  test("a Claude Desktop file's server is previewed, then added", async () => {
    const start = await shell.meterWhen((m) => m.toolsTotal >= 40, 'the demo counted');
    const secret = 'e2e-secret-value-7f3a';
    const file = home.file('claude_desktop_config.json');
    writeFileSync(
      file,
      JSON.stringify(
        {
          mcpServers: {
            imported: {
              command: env.node22,
              args: [env.serverEverything, 'stdio'],
              env: { E2E_IMPORTED_TOKEN: secret },
            },
          },
          globalShortcut: 'Ctrl+Space',
        },
        null,
        2,
      ),
    );

    const preview = await servers.previewImport('Claude Desktop', file);
    assert.match(preview, /adds imported/, `the preview names the server it adds: ${preview}`);
    const keep = await app.find('import-keep-secrets');
    assert.equal(await keep.isSelected(), true, 'keeping the values out of config.json is offered, ticked');
    assert.match(preview, /E2E_IMPORTED_TOKEN/, `the offer names the variable: ${preview}`);
    assert.equal(home.config().mcpServers.imported, undefined, 'a preview writes nothing');

    const report = await servers.commitImport();
    assert.match(report, /adds imported/, `the report names the server added: ${report}`);
    const row = await servers.rowWhen('imported', 'up', LAUNCH_TIMEOUT);
    assert.match(row, /E2E_IMPORTED_TOKEN/, `the row names the variable: ${row}`);
    assert.doesNotMatch(row, new RegExp(secret), 'the row never shows a secret value');

    const written = home.config().mcpServers.imported;
    assert.deepEqual(
      { command: written.command, args: written.args, env: written.env },
      {
        command: env.node22,
        args: [env.serverEverything, 'stdio'],
        env: { E2E_IMPORTED_TOKEN: '${secret:imported/env/E2E_IMPORTED_TOKEN}' },
      },
      'config.json has the server as the file had it, its secret kept out (the box is ticked by default)',
    );
    assert.doesNotMatch(readFileSync(home.configPath, 'utf8'), new RegExp(secret), 'config.json never holds the value');
    const grown = await until(
      async () => {
        const now = await shell.meter();
        return now.toolsTotal > start.toolsTotal ? now : null;
      },
      { timeout: LAUNCH_TIMEOUT, what: "the imported server's tools in the token meter" },
    );
    assert.ok(grown.toolsTotal > start.toolsTotal, `the meter counts the new tools: ${grown.text}`);
  });

  test("a server that exits at once stays down with its error and says when it is tried again", async () => {
    const config = home.config();
    // `node -e` with a message on stderr and a failing exit: a server that
    // dies before it answers, as a wrong command line does.
    config.mcpServers.broken = {
      command: env.node22,
      args: ['-e', 'console.error("e2e: no such database"); process.exit(3)'],
    };
    home.replaceConfig(config);
    const row = await servers.rowWhen('broken', 'down', LAUNCH_TIMEOUT);
    assert.match(row, /no such database|exit/i, `the row says why it is down: ${row}`);
    const retry = await (await app.find('server-retry-broken', LAUNCH_TIMEOUT)).getText();
    assert.match(retry, /^(next try in \d+ s|next try at .+|trying again now)$/, `the next try: ${retry}`);
    assert.equal(
      await (await servers.row('demo')).getAttribute('data-state'),
      'up',
      'the other servers stay up',
    );
  });
});
