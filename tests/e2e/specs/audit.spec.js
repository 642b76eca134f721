// The Audit screen: with `settings.audit` on, a call a host makes through
// its `mcp-sieve serve` is listed with who made it, the tool, its status
// and its arguments; a call made while the window is open shows up live;
// the status filter narrows the list.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AuditPage } from '../pages/audit.js';
import { App } from '../support/app.js';
import { demoServer, Home } from '../support/home.js';
import { StdioHost } from '../support/host.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

async function echo(host, text) {
  const result = await host.result('tools/call', { name: 'demo__echo', arguments: { text } });
  assert.notEqual(result.isError, true, `echo answers: ${JSON.stringify(result)}`);
}

describe('Audit screen', () => {
  let home;
  let host;
  let app;
  let audit;

  before(async () => {
    home = new Home({ servers: { demo: demoServer() } });
    home.replaceConfig({ ...home.config(), settings: { audit: { arguments: true } } });
    host = await StdioHost.start(home, 'default');
    await until(async () => (await host.tools()).some((t) => t.name === 'demo__echo'), {
      timeout: LAUNCH_TIMEOUT,
      what: "the host's proxy to list demo__echo",
    });
    await echo(host, 'first call');

    app = await App.launch(home);
    audit = new AuditPage(app);
    await audit.open();
  });

  after(async () => {
    await host?.stop();
    await app?.quit();
    home?.remove();
  });

  test("the host's call is listed with its tool, server, status and arguments", async () => {
    const [row] = await audit.rowsWhen((rows) => rows.length === 1, 'one audited call');
    assert.equal(row.status, 'ok', `the call succeeded: ${row.text}`);
    assert.match(row.text, /demo__echo/, `the row names the tool: ${row.text}`);
    assert.match(row.text, /demo/, `and the server: ${row.text}`);
    assert.match(row.text, /default/, `and the profile: ${row.text}`);
    const args = await (await app.find(`audit-row-${row.id}`)).findElement({ css: 'details summary' });
    await args.click();
    await until(async () => (await audit.rows())[0].text.includes('first call'), {
      what: 'the unfolded arguments to show the text echoed',
    });
  });

  test('a call made while the window is open shows up first, without a reload', async () => {
    await echo(host, 'second call');
    const rows = await audit.rowsWhen((shown) => shown.length === 2, 'the second call to be listed');
    assert.ok(Number(rows[0].id) > Number(rows[1].id), `newest first: ${rows.map((r) => r.id)}`);
  });

  test('the status filter narrows the list', async () => {
    await audit.filterStatus(['error']);
    await audit.rowsWhen((rows) => rows.length === 0, 'no errored call to be listed');
    await audit.filterStatus([]);
    await audit.rowsWhen((rows) => rows.length === 2, 'both calls again with no status picked');
  });
});
