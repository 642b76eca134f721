// Labels made in the app (DESIGN §8): GitHub's 117 tools, served by a real
// stdio server beside server-everything, get derived groups whose switches
// hide what they hold; three tools selected on the Tools screen get
// `cost: high`, written to config.json as one overlay each, and a profile
// choosing `cost: moderate` hides exactly those three; a derived group
// renamed on the Labels screen renames its switch; `security: medium`
// keeps read-only and non-destructive tools and hides destructive ones; a
// rule's match widened in its form on the Labels screen takes its value to
// every tool it now matches; three issue tools moved to another derived
// group on the Tools screen change both groups' counts.
// config.json declares no concerns, so the built-in ordered security and
// cost are in force.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { By } from 'selenium-webdriver';
import { LabelsPage } from '../pages/labels.js';
import { ProfilesPage } from '../pages/profiles.js';
import { Shell } from '../pages/shell.js';
import { ToolsPage } from '../pages/tools.js';
import { App, testId } from '../support/app.js';
import { everythingServer, githubCatalogServer, Home } from '../support/home.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

/** GitHub's tools the proxy puts in `github/issues` (from their names), a few of them. */
const ISSUE_TOOLS = ['github__list_issues', 'github__issue_write', 'github__add_issue_comment'];
/** How many of GitHub's tools are in `github/issues`. */
const ISSUES = 28;
/** GitHub's search tools, all read-only: `github__search_*` matches these. */
const SEARCH_TOOLS = [
  'github__search_code',
  'github__search_commits',
  'github__search_issues',
  'github__search_orgs',
  'github__search_pull_requests',
  'github__search_repositories',
  'github__search_users',
];
/** How many of GitHub's tools are in `github/repositories`. */
const REPOSITORIES = 18;
/** Three tools of three other derived groups (commits, files, code). */
const EXPENSIVE = ['github__list_commits', 'github__get_file_contents', 'github__search_code'];

describe('Labels', () => {
  let home;
  let app;
  let shell;
  let tools;
  let labels;
  let profiles;
  /** The meter once both servers are counted. */
  let full;

  before(async () => {
    home = new Home({
      servers: { github: githubCatalogServer(), everything: everythingServer() },
      concerns: [],
    });
    app = await App.launch(home);
    shell = new Shell(app);
    tools = new ToolsPage(app);
    labels = new LabelsPage(app);
    profiles = new ProfilesPage(app);
    await shell.open('tools');
    full = await until(
      async () => {
        const meter = await shell.meter();
        return meter.toolsTotal > 117 ? meter : null;
      },
      { timeout: LAUNCH_TIMEOUT, what: "GitHub's 117 tools and server-everything's in the token meter" },
    );
  });

  after(async () => {
    await app?.quit();
    home?.remove();
  });

  test('derived groups are switches: issues off hides the issue tools and lowers the meter', async () => {
    const issues = await tools.groupToggle('github/issues');
    assert.equal(await issues.getAttribute('data-derived'), 'true', 'issues is derived');
    assert.equal(
      await (await tools.groupToggle('github/pull-requests')).getAttribute('data-derived'),
      'true',
      'pull-requests is derived',
    );
    assert.equal(
      await (await tools.groupToggle('server:github')).getAttribute('data-derived'),
      'false',
      "a server's own group is not",
    );

    await tools.setGroup('github/issues', false);

    await until(() => home.profile()?.groups?.none?.includes('github/issues'), {
      what: 'groups.none github/issues in profiles/default.json',
    });
    for (const name of ISSUE_TOOLS) {
      const row = await tools.rowWhen(name, false);
      assert.match(row, /groups\.none github\/issues/, `${name} says which rule hides it: ${row}`);
    }
    assert.doesNotMatch(await tools.rowWhen('github__list_commits', true), /hidden by/, 'a commits tool stays shown');
    const lowered = await shell.meterWhen((m) => m.toolsVisible < full.toolsVisible, 'fewer tools');
    assert.equal(lowered.toolsVisible, full.toolsVisible - ISSUES, `GitHub's ${ISSUES} issue tools are gone: ${lowered.text}`);
    assert.ok(lowered.tokensVisible < full.tokensVisible, `fewer tokens: ${full.text} -> ${lowered.text}`);
    assert.equal(lowered.toolsTotal, full.toolsTotal, 'the total stays');

    // Back on, for the tests after this one.
    await tools.setGroup('github/issues', true);
    await shell.meterWhen((m) => m.toolsVisible === full.toolsVisible, 'every tool again');
  });

  test('three selected tools given cost high: one overlay each; cost moderate then hides exactly them', async () => {
    for (const name of EXPENSIVE) {
      await tools.rowWhen(name, true);
      await labels.select(name);
    }
    await labels.setConcern('cost', 'high');

    const overlays = await until(
      () => {
        const written = (home.config().overlays ?? []).filter((o) => o.concerns?.cost === 'high');
        return written.length === EXPENSIVE.length ? written : null;
      },
      { what: 'three overlays with cost high in config.json' },
    );
    assert.deepEqual(
      overlays.map((o) => o.match).sort(),
      [...EXPENSIVE].sort(),
      'one overlay per tool, by its exact name',
    );
    assert.deepEqual(home.config().concerns ?? [], [], 'the concerns stay the built-in ones');
    await until(async () => !(await labels.isSelected(EXPENSIVE.at(-1))), { what: 'the selection to clear' });
    for (const name of EXPENSIVE) {
      await tools.search(name);
      await until(async () => (await (await app.find(`tool-row-${name}`)).getText()).includes('cost=high'), {
        what: `${name}'s row to carry cost=high`,
      });
    }

    await shell.open('profiles');
    await profiles.chooseConcern('cost', 'moderate');
    await until(() => home.profile()?.concerns?.cost === 'moderate', {
      what: 'concerns.cost = "moderate" in profiles/default.json',
    });
    const lowered = await shell.meterWhen((m) => m.toolsVisible < full.toolsVisible, 'fewer tools');
    assert.equal(lowered.toolsVisible, full.toolsVisible - EXPENSIVE.length, `three tools fewer: ${lowered.text}`);

    await shell.open('tools');
    for (const name of EXPENSIVE) {
      const row = await tools.rowWhen(name, false);
      assert.match(row, /cost high is below the chosen moderate/, `${name} says why: ${row}`);
    }
    await tools.search('');
    await tools.show('hidden');
    const hidden = await until(
      async () => {
        const names = await tools.rowNames();
        return names.length === EXPENSIVE.length ? names : null;
      },
      { what: 'the hidden rows to be listed' },
    );
    assert.deepEqual(hidden.sort(), [...EXPENSIVE].sort(), 'exactly those three are hidden');
    await tools.show('all');
  });

  test('the Labels screen lists the rules, and a derived group renamed there renames its switch', async () => {
    await shell.open('labels');
    const rules = await labels.rulesWhen(EXPENSIVE.length);
    for (const rule of rules) {
      assert.match(rule, /cost=high/, `the rule says what it adds: ${rule}`);
      assert.match(rule, /\b1 primitive\b/, `the rule says how many it matches: ${rule}`);
    }
    assert.match(await labels.concernText('cost'), /minimal › moderate › high/, 'the built-in cost, in order');

    // A bare new name stays in the group's server.
    await labels.renameGroup('github/pull-requests', 'reviews');

    await until(() => home.config().groupRenames?.['github/pull-requests'] === 'github/reviews', {
      what: 'groupRenames github/pull-requests → github/reviews in config.json',
    });
    await app.find('group-rename-github/reviews');
    await shell.open('tools');
    const renamed = await app.find('group-toggle-github/reviews');
    assert.equal(await renamed.getAttribute('data-derived'), 'true', 'the renamed group is still derived');
    await until(async () => (await app.driver.findElements(testId('group-toggle-github/pull-requests'))).length === 0, {
      what: 'the pull-requests switch to go',
    });
    const row = await tools.rowWhen('github__merge_pull_request', true);
    // The chips' texts run together in the row's text.
    assert.match(row, /reviews/, `a pull-request tool is in reviews now: ${row}`);
    assert.doesNotMatch(row, /pull-requests/, `and no longer in pull-requests: ${row}`);
    const ticked = await app.driver.findElements(By.css('[data-testid^="tool-select-"]:checked'));
    assert.equal(ticked.length, 0, 'nothing is left selected');
  });

  test('security medium keeps read-only and non-destructive tools and hides destructive ones', async () => {
    await shell.open('profiles');
    await profiles.chooseConcern('security', 'medium');
    await until(() => home.profile()?.concerns?.security === 'medium', {
      what: 'concerns.security = "medium" in profiles/default.json',
    });
    await shell.open('tools');
    // Levels from GitHub's annotations: get_me is read-only (high),
    // create_issue writes without destroying (medium), delete_file may
    // destroy (low).
    assert.doesNotMatch(await tools.rowWhen('github__get_me', true), /hidden by/, 'read-only stays');
    assert.doesNotMatch(await tools.rowWhen('github__create_issue', true), /hidden by/, 'a non-destructive write stays');
    const row = await tools.rowWhen('github__delete_file', false);
    assert.match(row, /security low is below the chosen medium/, `a destructive tool says why: ${row}`);
    await tools.search('');
  });

  test("a rule's match widened in its form: config.json, the rule's count, the rows, a new switch and the meter follow", async () => {
    const index = home.config().overlays.findIndex((o) => o.match === 'github__search_code');
    assert.ok(index >= 0, 'the rule cost high wrote for github__search_code');
    const others = home.config().overlays.filter((_, i) => i !== index);
    await shell.open('labels');
    await labels.ruleWhen(index, (text) => /\b1 primitive\b/.test(text), 'to match one primitive');
    // Read from a meter that has long followed security medium: the form
    // is opened and filled in first.
    const before = await shell.meter();

    await labels.editRule(index, { match: 'github__search_*', groups: 'costly' });

    const rule = await until(
      () => {
        const overlay = home.config().overlays[index];
        return overlay?.match === 'github__search_*' ? overlay : null;
      },
      { what: `overlays[${index}].match "github__search_*" in config.json` },
    );
    assert.deepEqual(
      rule,
      { match: 'github__search_*', groups: ['costly'], concerns: { cost: 'high' } },
      'the match and the group replaced, cost high kept',
    );
    assert.equal(home.config().overlays.length, EXPENSIVE.length, 'edited in place, not added');
    assert.deepEqual(
      home.config().overlays.filter((_, i) => i !== index),
      others,
      'the other rules are left as they were',
    );
    const text = await labels.ruleWhen(
      index,
      (t) => t.includes(`${SEARCH_TOOLS.length} primitives`),
      `to match ${SEARCH_TOOLS.length} primitives`,
    );
    assert.match(text, /group costly/, `the rule says what it adds now: ${text}`);
    assert.match(text, /cost=high/, `and what it kept: ${text}`);

    // The profile chooses cost moderate: every search tool is hidden now.
    const lowered = await shell.meterWhen(
      (m) => m.toolsVisible === before.toolsVisible - (SEARCH_TOOLS.length - 1),
      `${SEARCH_TOOLS.length - 1} tools fewer than ${before.toolsVisible}`,
    );
    assert.ok(lowered.tokensVisible < before.tokensVisible, `fewer tokens: ${before.text} -> ${lowered.text}`);
    await shell.open('tools');
    const toggle = await tools.groupToggle('costly');
    assert.equal(await toggle.getAttribute('data-derived'), 'false', 'a group a person made is not derived');
    const costly = await tools.groupCountWhen(
      'costly',
      (c) => c.total === SEARCH_TOOLS.length,
      `to hold ${SEARCH_TOOLS.length} tools`,
    );
    assert.equal(costly.shown, 0, 'all of them hidden by cost moderate');
    for (const name of SEARCH_TOOLS) {
      const row = await tools.rowWhen(name, false);
      assert.match(row, /cost high is below the chosen moderate/, `${name} says why: ${row}`);
    }
    await tools.search('');
  });

  test('three selected tools moved from one derived group to another: config.json and both switches follow', async () => {
    await shell.open('tools');
    for (const group of ['github/issues', 'github/repositories']) {
      const toggle = await tools.groupToggle(group);
      assert.equal(await toggle.getAttribute('data-derived'), 'true', `${group} is derived`);
    }
    await tools.groupCountWhen('github/issues', (c) => c.total === ISSUES, `to hold ${ISSUES} tools`);
    await tools.groupCountWhen('github/repositories', (c) => c.total === REPOSITORIES, `to hold ${REPOSITORIES} tools`);
    for (const name of ISSUE_TOOLS) {
      await tools.search(name);
      await labels.select(name);
    }

    // Typed bare, the group of the same server is meant.
    await labels.moveToGroup('github/issues', 'repositories');

    const moved = await until(
      () => {
        const overlays = (home.config().overlays ?? []).filter((o) => ISSUE_TOOLS.includes(o.match));
        return overlays.length === ISSUE_TOOLS.length ? overlays : null;
      },
      { what: 'an overlay for each moved tool in config.json' },
    );
    for (const overlay of moved) {
      assert.deepEqual(
        overlay,
        { match: overlay.match, groups: ['github/repositories'], removeGroups: ['github/issues'] },
        `${overlay.match} leaves github/issues for github/repositories`,
      );
    }
    await until(async () => !(await labels.isSelected(ISSUE_TOOLS.at(-1))), { what: 'the selection to clear' });
    await tools.search('');
    const issues = await tools.groupCountWhen('github/issues', (c) => c.total === ISSUES - 3, `to hold ${ISSUES - 3} tools`);
    const repositories = await tools.groupCountWhen(
      'github/repositories',
      (c) => c.total === REPOSITORIES + 3,
      `to hold ${REPOSITORIES + 3} tools`,
    );
    assert.ok(issues.shown <= issues.total && repositories.shown <= repositories.total, 'counts read shown/total');
    const row = await tools.rowWhen('github__list_issues', true);
    assert.match(row, /repositories/, `list_issues is in repositories now: ${row}`);
    await tools.search('');
  });
});
