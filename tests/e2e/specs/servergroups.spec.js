// Groups belong to their server (DESIGN §3, §8): two servers with the same
// tools (GitHub's 117, from two real stdio servers named github and work)
// each get their own derived groups, under their own heading, so their
// `issues` are two switches; one of them renamed on the Labels screen
// stays in its server and leaves the other alone. `cost: minimal` on the
// Profiles screen hides exactly the tools whose cost the library says is
// above it, each row saying why. A profile written before groups belonged
// to their server, switching `pull-requests` off bare, is told about at
// start, and switching one server's group on keeps the other's off.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { LabelsPage } from '../pages/labels.js';
import { ProfilesPage } from '../pages/profiles.js';
import { Shell } from '../pages/shell.js';
import { ToolsPage } from '../pages/tools.js';
import { App, testId } from '../support/app.js';
import { env } from '../support/env.js';
import { githubCatalogServer, Home } from '../support/home.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

describe('Groups of two servers', () => {
  let home;
  let app;
  let shell;
  let tools;
  let labels;
  let profiles;

  before(async () => {
    home = new Home({
      servers: { github: githubCatalogServer(), work: githubCatalogServer() },
      concerns: [],
      profiles: { default: { groups: { none: ['pull-requests'] } } },
    });
    app = await App.launch(home);
    shell = new Shell(app);
    tools = new ToolsPage(app);
    labels = new LabelsPage(app);
    profiles = new ProfilesPage(app);
    await shell.open('tools');
    await shell.meterWhen((m) => m.toolsTotal === 234, "both servers' 117 tools", LAUNCH_TIMEOUT);
  });

  after(async () => {
    await app?.quit();
    home?.remove();
  });

  test('the start says what an older bare group name now means; one server switched on keeps the other off', async () => {
    const notice = await app.find('start-notices', LAUNCH_TIMEOUT);
    const text = await notice.getText();
    assert.match(text, /"pull-requests" without a server/, text);
    assert.match(text, /github\/pull-requests and work\/pull-requests/, text);
    assert.equal(await tools.isGroupOn('github/pull-requests'), false, 'off in github by the bare name');
    assert.equal(await tools.isGroupOn('work/pull-requests'), false, 'and in work');
    await tools.setGroup('github/pull-requests', true);
    await until(() => JSON.stringify(home.profile()?.groups?.none) === '["work/pull-requests"]', {
      what: 'groups.none ["work/pull-requests"] in profiles/default.json',
    });
    await tools.rowWhen('github__list_pull_requests', true);
    await tools.rowWhen('work__list_pull_requests', false);
    await tools.setGroup('work/pull-requests', true);
    await until(() => (home.profile()?.groups?.none ?? []).length === 0, { what: 'groups.none empty' });
    await (await app.find('start-notices-dismiss')).click();
    await until(async () => (await app.driver.findElements(testId('start-notices'))).length === 0, {
      what: 'the notice to go when dismissed',
    });
    await tools.search('');
  });

  test('each server has its own switches beneath it; one of them switched off leaves the other', async () => {
    for (const server of ['github', 'work']) {
      await app.find(`group-server-${server}`);
      const issues = await tools.groupToggle(`${server}/issues`);
      assert.equal(await issues.getAttribute('data-derived'), 'true', `${server}/issues is derived`);
    }
    await tools.setGroup('work/issues', false);
    await until(() => home.profile()?.groups?.none?.includes('work/issues'), {
      what: 'groups.none work/issues in profiles/default.json',
    });
    assert.deepEqual(home.profile().groups.none, ['work/issues'], "only work's issues");
    const hidden = await tools.rowWhen('work__list_issues', false);
    assert.match(hidden, /groups\.none work\/issues/, `the row says which rule hides it: ${hidden}`);
    await tools.rowWhen('github__list_issues', true);
    assert.equal(await tools.isGroupOn('github/issues'), true, "github's issues stay on");
    await tools.setGroup('work/issues', true);
    await tools.search('');
  });

  test("a server's group renamed on the Labels screen stays in its server", async () => {
    await shell.open('labels');
    await labels.renameGroup('work/issues', 'tickets');
    await until(() => home.config().groupRenames?.['work/issues'] === 'work/tickets', {
      what: 'groupRenames work/issues → work/tickets in config.json',
    });
    await shell.open('tools');
    const renamed = await app.find('group-toggle-work/tickets');
    assert.equal(await renamed.getAttribute('data-derived'), 'true', 'still derived');
    await app.find('group-toggle-github/issues');
    await until(async () => (await app.driver.findElements(testId('group-toggle-work/issues'))).length === 0, {
      what: 'the work/issues switch to go',
    });
    const row = await tools.rowWhen('github__list_issues', true);
    assert.match(row, /github\/issues/, `github's issue tools keep their group: ${row}`);
    await tools.search('');
  });

  test('cost minimal hides exactly the tools the library judges above it, each saying why', async () => {
    // What the library says of each tool, through the command line.
    const rows = JSON.parse(
      execFileSync(env.cli, ['--home', home.dir, 'tools', '--json', '--hidden'], { encoding: 'utf8' }),
    );
    const above = rows.filter((r) => r.concerns.cost && r.concerns.cost !== 'minimal');
    assert.ok(above.length > 0 && above.length < rows.length, `some, not all: ${above.length} of ${rows.length}`);

    await shell.open('profiles');
    await profiles.chooseConcern('cost', 'minimal');
    await until(() => home.profile()?.concerns?.cost === 'minimal', {
      what: 'concerns.cost = "minimal" in profiles/default.json',
    });
    await shell.open('tools');
    await tools.show('hidden');
    const expected = above.map((r) => r.exposedName).sort();
    const hidden = await until(
      async () => {
        const names = (await tools.rowNames()).sort();
        return names.length === expected.length ? names : null;
      },
      { what: `${expected.length} hidden rows` },
    );
    assert.deepEqual(hidden, expected, 'exactly the tools above minimal');
    for (const r of above.slice(0, 4)) {
      const text = await tools.rowWhen(r.exposedName, false);
      assert.match(text, new RegExp(`cost ${r.concerns.cost} is below the chosen minimal`), `${r.exposedName}: ${text}`);
      const why = await app.find(`concern-why-cost-${r.exposedName}`);
      assert.equal(await why.getText(), r.concernReasons.cost, `${r.exposedName} says which part decided`);
    }
    await tools.search('');
    await tools.show('all');
  });
});
