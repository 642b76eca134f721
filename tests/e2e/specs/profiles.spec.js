// The Profiles screen: a concern chosen is written into the profile and
// hides the tools of other values, each saying why; a bad glob typed into
// a pattern field is shown as an error and never reaches the file.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { By } from 'selenium-webdriver';
import { ProfilesPage } from '../pages/profiles.js';
import { Shell } from '../pages/shell.js';
import { ToolsPage } from '../pages/tools.js';
import { App } from '../support/app.js';
import { Home, standardServers } from '../support/home.js';
import { until } from '../support/wait.js';

describe('Profiles screen', () => {
  let home;
  let app;
  let shell;
  let profiles;
  let tools;

  before(async () => {
    // The profile exists before the app starts, so every byte of it is
    // the test's to compare.
    home = new Home({
      profiles: {
        default: { description: 'Everything, until the test says otherwise' },
        reviewer: { description: 'Read-only tools', tags: { all: ['read-only'] } },
      },
    });
    app = await App.launch(home);
    shell = new Shell(app);
    profiles = new ProfilesPage(app);
    tools = new ToolsPage(app);
    await shell.open('profiles');
  });

  after(async () => {
    await app?.quit();
    home?.remove();
  });

  test('security=high is written to the profile and hides a low-security tool with the reason', async () => {
    assert.equal(await shell.editing(), 'default', 'the default profile is being edited');
    assert.equal(await profiles.concern('security'), 'any', 'no security level is set yet');

    await profiles.chooseConcern('security', 'high');

    const profile = await until(() => home.profile()?.concerns?.security === 'high' && home.profile(), {
      what: 'concerns.security = "high" in profiles/default.json',
    });
    assert.equal(profile.description, 'Everything, until the test says otherwise', 'the rest of the file stays');

    await shell.open('tools');
    const row = await tools.rowWhen('demo__delete_file', false);
    assert.match(row, /concern security=high vs low/, `the row says which rule hides it: ${row}`);
    const shown = await tools.rowWhen('demo__read_file', true);
    assert.doesNotMatch(shown, /hidden by/, 'a high-security tool stays shown');
  });

  test('a bad glob in the tools deny field is shown as an error and the file is unchanged', async () => {
    await shell.open('profiles');
    const bytes = home.profileBytes();

    await profiles.typePattern('tools', 'deny', 'demo__[');
    const error = await profiles.patternError('tools', 'deny');
    assert.match(error, /demo__\[/, `the error names the pattern: ${error}`);
    assert.match(error, /unclosed character class/i, `the error says what is wrong: ${error}`);
    assert.equal(await (await profiles.addButton('tools', 'deny')).isEnabled(), false, 'Add is disabled');

    // Enter submits the form; a bad glob is still not sent.
    await profiles.submitPattern('tools', 'deny');
    assert.equal(await profiles.patternError('tools', 'deny'), error, 'the error stays');
    assert.deepEqual(await profiles.patterns('tools', 'deny'), [], 'the deny list shows no new pattern');
    assert.ok(home.profileBytes().equals(bytes), 'profiles/default.json is byte for byte the same');

    // The same field takes a good glob at once, so the check is live.
    await profiles.typePattern('tools', 'deny', 'demo__*delete*');
    await until(async () => (await profiles.addButton('tools', 'deny')).isEnabled(), {
      what: 'Add to be enabled for a good glob',
    });
    assert.ok(home.profileBytes().equals(bytes), 'typing alone writes nothing');
  });

  test('profile-select switches the profile being edited, and the meter follows it', async () => {
    const select = await shell.profileSelect();
    const options = await Promise.all((await select.getOptions()).map((option) => option.getAttribute('value')));
    assert.deepEqual(options.sort(), ['default', 'reviewer'], 'both profiles are offered');
    const start = await shell.meter();

    await select.selectByValue('reviewer');
    await until(async () => (await shell.editing()) === 'reviewer', { what: 'reviewer to be edited' });
    const reviewer = await shell.meterWhen((m) => m.toolsVisible !== start.toolsVisible, "reviewer's count");
    assert.equal(reviewer.toolsTotal, start.toolsTotal, 'the same servers');
    await shell.open('profiles');
    assert.equal(await profiles.concern('security'), 'any', "reviewer's own concerns show");

    await (await shell.profileSelect()).selectByValue('default');
    await shell.meterWhen((m) => m.toolsVisible === start.toolsVisible, 'default again');
    assert.equal(await profiles.concern('security'), 'high', "default's concern shows again");
    assert.equal(home.profile('reviewer').tags.all[0], 'read-only', 'switching writes nothing');
  });

  test('Make active writes settings.activeProfile, and the active profile cannot be deleted', async () => {
    await shell.open('profiles');
    assert.equal(await profiles.isActive('default'), true, 'default is active at first');
    await profiles.makeActive('reviewer');
    await until(() => home.config().settings?.activeProfile === 'reviewer', {
      what: 'config.json to name reviewer active',
    });
    await until(() => profiles.isActive('reviewer'), { what: "reviewer's card to say active" });
    assert.equal(await profiles.isActive('default'), false);
    const card = await profiles.card('reviewer');
    const deletes = await card.findElements(By.xpath('.//button[text()="Delete"]'));
    assert.equal(deletes.length, 0, 'the active profile offers no Delete');
    assert.deepEqual(home.config().mcpServers, standardServers(), 'the rest of config.json stays');
  });
});
