// The Tasks screen of an app that manages a team's gateway (`--state`, DESIGN
// §12): the failed calls two replicas wrote to the team's PostgreSQL database
// are listed (not this machine's ledger, which has none), a retry from the
// screen is a new entry every replica lists, and an entry one of them writes
// while the window is open shows up.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Shell } from '../pages/shell.js';
import { TasksPage } from '../pages/tasks.js';
import { App } from '../support/app.js';
import { Home, demoServer } from '../support/home.js';
import { Team } from '../support/team.js';
import { until } from '../support/wait.js';

const RETRY_OF = 'dev.mcp-sieve/retryOf';

describe('Tasks screen on a team database', () => {
  let team;
  let a;
  let b;
  let home;
  let app;
  let tasks;
  const failed = [];

  /** Calls demo__get_issue on an issue that does not exist through `replica`; the entry's id. */
  async function failingCall(replica, id) {
    const answer = await team.request(replica, 'tools/call', { name: 'demo__get_issue', arguments: { id } });
    assert.equal(answer.result?.isError, true, `get_issue #${id} fails: ${JSON.stringify(answer)}`);
    const listed = await team.request(replica, 'tasks/list', { orderBy: 'createdAt', limit: 1 });
    return listed.result.tasks[0].taskId;
  }

  before(async () => {
    team = await Team.start({ mcpServers: { demo: demoServer() } });
    a = await team.replica();
    b = await team.replica();
    failed.push(await failingCall(a, 997), await failingCall(b, 998));
    // The app's own home has servers of its own and no ledger entry: what
    // the screen lists can only come from the team's database.
    home = new Home();
    app = await App.launch(home, { state: team.url });
    tasks = new TasksPage(app);
    await new Shell(app).open('tasks');
  });

  after(async () => {
    await app?.quit();
    team?.stop();
    home?.remove();
  });

  test("both replicas' failed calls are listed from the database", async () => {
    for (const id of failed) {
      assert.equal(await tasks.status(id), 'failed', `${id} is listed as failed`);
    }
    assert.deepEqual(new Set(await tasks.ids()), new Set(failed), 'only the team\'s entries');
  });

  test('Retry runs an entry again as a new entry the replicas list', async () => {
    const retried = await tasks.retry(failed[0]);
    assert.ok(!failed.includes(retried), 'a new entry');
    await until(async () => (await tasks.status(retried)) === 'failed', {
      what: `the retry ${retried} to fail as get_issue #997 does`,
    });
    const seen = await team.request(b, 'tasks/list', { taskIds: [retried] });
    assert.equal(seen.result.tasks[0]?._meta?.[RETRY_OF], failed[0], `replica B lists the retry: ${JSON.stringify(seen)}`);
  });

  test('an entry a replica writes while the window is open shows up', async () => {
    const id = await failingCall(b, 996);
    await until(async () => (await tasks.ids()).includes(id), { what: `the new entry ${id} on the screen` });
    assert.equal(await tasks.status(id), 'failed');
  });
});
