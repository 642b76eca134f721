// How few steps a person needs, on GitHub's 117 tools, to get a profile
// under a tenth of the tokens that still reads and comments on issues and
// pull requests (issue 22). Every click, choice and typed field is counted;
// the counts are printed and stand in the README.
//
// Two ways: label the tools wanted with a tag and require it (the host
// then lists just those), or search mode (the host lists two tools of the
// proxy's own and finds and calls the rest through them).

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { By, Select } from 'selenium-webdriver';
import { LabelsPage } from '../pages/labels.js';
import { Shell } from '../pages/shell.js';
import { ToolsPage } from '../pages/tools.js';
import { App, typeInto } from '../support/app.js';
import { githubCatalogServer, Home } from '../support/home.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

/** Reading and commenting on issues and pull requests. */
const ISSUES = ['github__list_issues', 'github__issue_read', 'github__search_issues', 'github__add_issue_comment'];
const PULLS = [
  'github__list_pull_requests',
  'github__pull_request_read',
  'github__search_pull_requests',
  'github__add_reply_to_pull_request_comment',
];

describe('Steps to a small profile on GitHub', () => {
  let home;
  let app;
  let shell;
  let tools;
  let labels;
  let full;

  before(async () => {
    home = new Home({ servers: { github: githubCatalogServer() }, concerns: [] });
    app = await App.launch(home);
    shell = new Shell(app);
    tools = new ToolsPage(app);
    labels = new LabelsPage(app);
    await shell.open('tools');
    full = await until(
      async () => {
        const meter = await shell.meter();
        return meter.toolsTotal === 117 ? meter : null;
      },
      { timeout: LAUNCH_TIMEOUT, what: "GitHub's 117 tools in the token meter" },
    );
  });

  after(async () => {
    await app?.quit();
    home?.remove();
  });

  test('a tag on the tools wanted, then required', async () => {
    let steps = 0;
    for (const [search, names] of [
      ['issue', ISSUES],
      ['pull_request', PULLS],
    ]) {
      await tools.search(search);
      steps += 1;
      for (const name of names) {
        await tools.rowWhen(name, true, { search: false });
        await labels.select(name);
        steps += 1;
      }
    }
    await typeInto(await app.find('label-tag-input'), 'triage');
    await (await app.find('label-tag-add')).click();
    steps += 2;
    await until(() => (home.config().overlays ?? []).filter((o) => o.tags?.includes('triage')).length === 8, {
      what: 'the tag triage on the eight tools in config.json',
    });
    await tools.search('');
    const require = await until(
      async () => {
        const found = await app.driver.findElements(By.css('[aria-label="Tag triage"] button'));
        for (const button of found) {
          if ((await button.getText()) === 'Require') return button;
        }
        return null;
      },
      { what: "the tag panel's Require for #triage" },
    );
    await require.click();
    steps += 1;

    const small = await shell.meterWhen((m) => m.toolsVisible === 8, 'the eight tools');
    const share = small.tokensVisible / full.tokensVisible;
    console.log(
      `steps with a tag: ${steps} (${small.toolsVisible} tools, ${small.tokensVisible} of ${full.tokensVisible} tokens, ${(share * 100).toFixed(1)}%)`,
    );
    assert.ok(share < 0.1, `under a tenth of the tokens: ${small.text}`);
    assert.equal(steps, 13, 'two searches, eight ticks, the tag typed and added, Require');
    for (const name of [...ISSUES, ...PULLS]) {
      await tools.rowWhen(name, true);
    }

    // Back to everything for the next way.
    await tools.search('');
    const neither = await until(
      async () => {
        for (const button of await app.driver.findElements(By.css('[aria-label="Tag triage"] button'))) {
          if ((await button.getText()) === 'Neither') return button;
        }
        return null;
      },
      { what: "the tag panel's Neither for #triage" },
    );
    await neither.click();
    await shell.meterWhen((m) => m.toolsVisible === full.toolsVisible, 'every tool again');
  });

  test('search mode: one choice', async () => {
    await shell.open('profiles');
    const disclosure = await app.find('profile-disclosure');
    await new Select(disclosure).selectByValue('search');
    const steps = 1;
    await until(() => home.profile()?.disclosure === 'search', { what: 'disclosure search in profiles/default.json' });
    const small = await shell.meterWhen((m) => m.toolsVisible < 10, 'the search tools only');
    const share = small.tokensVisible / full.tokensVisible;
    console.log(
      `steps with search mode: ${steps} (${small.toolsVisible} tools listed, ${small.tokensVisible} of ${full.tokensVisible} tokens, ${(share * 100).toFixed(1)}%; every tool found and called through sieve__find_tools and sieve__call_tool)`,
    );
    assert.ok(share < 0.1, `under a tenth of the tokens: ${small.text}`);

    // How its search ranks here: the app looks for the sentence model
    // where its proxy does, beside the program or in the user's cache;
    // this app's HOME is the spec's own, with no model in it until one
    // is put there.
    const cached = join(home.desktopHome, '.cache/mcp-sieve/models/all-MiniLM-L6-v2');
    const ranking = await app.find('profile-search-ranking');
    const missing = await ranking.getText();
    assert.equal(await ranking.getAttribute('data-meaning'), 'false', missing);
    assert.match(missing, /ranks by words alone/);
    assert.ok(missing.includes(cached), missing);
    mkdirSync(cached, { recursive: true });
    for (const file of ['model.safetensors', 'config.json', 'tokenizer.json']) writeFileSync(join(cached, file), '');
    await new Select(await app.find('profile-disclosure')).selectByValue('list');
    await until(() => home.profile()?.disclosure === undefined, { what: 'disclosure list in profiles/default.json' });
    await new Select(await app.find('profile-disclosure')).selectByValue('search');
    const found = await until(
      async () => {
        const again = await app.find('profile-search-ranking');
        return (await again.getAttribute('data-meaning')) === 'true' ? again.getText() : null;
      },
      { what: 'the search said to rank by meaning once the model is there' },
    );
    assert.ok(found.includes(`with the sentence model all-MiniLM-L6-v2 in ${cached}.`), found);
    console.log(`search ranking: ${missing} Then: ${found}`);
  });
});
