// The Tasks screen: a call that failed through a host's `mcp-sieve serve`
// is in the ledger, is retried from the screen as a new entry pointing to
// the old one, and a failure made while the window is open shows up live.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Shell } from '../pages/shell.js';
import { TasksPage } from '../pages/tasks.js';
import { App } from '../support/app.js';
import { Home } from '../support/home.js';
import { StdioHost } from '../support/host.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

const RETRY_OF = 'dev.mcp-sieve/retryOf';

/** Calls demo__get_issue on an issue that does not exist: an `isError` result. */
async function failingCall(host, id) {
  const result = await host.result('tools/call', { name: 'demo__get_issue', arguments: { id } });
  assert.equal(result.isError, true, `get_issue #${id} fails: ${JSON.stringify(result)}`);
}

/** The ledger's failed entries, newest first, as the host's proxy lists them. */
async function failed(host) {
  return (await host.result('tasks/list', { status: ['failed'] })).tasks;
}

describe('Tasks screen', () => {
  let home;
  let host;
  let app;
  let shell;
  let tasks;
  let first;

  before(async () => {
    home = new Home();
    host = await StdioHost.start(home, 'default');
    await until(async () => (await host.tools()).some((t) => t.name === 'demo__get_issue'), {
      timeout: LAUNCH_TIMEOUT,
      what: "the host's proxy to list demo__get_issue",
    });
    await failingCall(host, 999);
    [first] = await failed(host);
    assert.ok(first, 'the failed call is in the ledger');

    app = await App.launch(home);
    shell = new Shell(app);
    tasks = new TasksPage(app);
    await shell.open('tasks');
  });

  after(async () => {
    await host?.stop();
    await app?.quit();
    home?.remove();
  });

  test('the failed call is listed with its status', async () => {
    const row = await tasks.row(first.taskId);
    assert.equal(await row.getAttribute('data-status'), 'failed');
    const text = await row.getText();
    assert.match(text, /demo__get_issue/, `the row names the tool: ${text}`);
    assert.match(text, /demo/, `and the server: ${text}`);
  });

  test('Retry runs it again as a new entry that points to the old one', async () => {
    const retried = await tasks.retry(first.taskId);
    assert.notEqual(retried, first.taskId, 'a new entry');
    await until(async () => (await tasks.status(retried)) === 'failed', {
      what: `the retry ${retried} to fail as get_issue #999 does`,
    });
    const notice = await tasks.notice();
    assert.match(notice, new RegExp(`Ran ${first.taskId} again as ${retried}`), `the notice says so: ${notice}`);

    const detail = await tasks.detail(retried);
    assert.match(detail, /Retries/, `the detail shows the retry chain: ${detail}`);
    assert.ok(detail.includes(first.taskId), `the detail names the entry it retried: ${detail}`);

    const ledger = await failed(host);
    const entry = ledger.find((task) => task.taskId === retried);
    assert.ok(entry, `the ledger has ${retried}`);
    assert.equal(entry._meta[RETRY_OF], first.taskId, 'the ledger points the new entry to the old one');
    assert.equal(await tasks.status(first.taskId), 'failed', 'the old entry stays as it was');
  });

  test('a call that fails while the window is open shows up without a reload', async () => {
    const shown = new Set(await tasks.ids());
    await failingCall(host, 4242);
    const entry = (await failed(host)).find((task) => !shown.has(task.taskId));
    assert.ok(entry, 'the new failure is in the ledger');
    const row = await tasks.row(entry.taskId);
    assert.equal(await row.getAttribute('data-status'), 'failed');
  });
});
