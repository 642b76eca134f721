// The Tools screen: a group switched off hides its tools, is written into
// the profile as `groups.none`, lowers the token meter, and reaches a
// running `mcp-sieve serve` host as tools/list_changed; a tag expression is
// refused with its column when it does not read, and hides what it
// excludes when it does; a tool's text is edited on its row, and "Try"
// calls it.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { By } from 'selenium-webdriver';
import { Shell } from '../pages/shell.js';
import { ToolsPage } from '../pages/tools.js';
import { App, typeInto } from '../support/app.js';
import { Home } from '../support/home.js';
import { StdioHost } from '../support/host.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

/** The demo's billing tools (crates/sieve-demo/src/catalog.rs). */
const BILLING = ['demo__list_invoices', 'demo__pay_invoice', 'demo__billing_summary'];
const ADMIN = ['demo__list_users', 'demo__delete_user', 'demo__assign_issue'];

const GROUPS_META = 'dev.mcp-sieve/groups';

describe('Tools screen', () => {
  let home;
  let app;
  let shell;
  let tools;
  let host;
  /** The meter once both servers are counted. */
  let full;

  before(async () => {
    home = new Home();
    app = await App.launch(home);
    shell = new Shell(app);
    tools = new ToolsPage(app);
    await shell.open('tools');
    // Both servers listed: 40 demo tools and server-everything's.
    full = await until(
      async () => {
        const meter = await shell.meter();
        return meter.toolsTotal > 40 ? meter : null;
      },
      { timeout: LAUNCH_TIMEOUT, what: 'both servers in the token meter' },
    );
  });

  after(async () => {
    await host?.stop();
    await app?.quit();
    home?.remove();
  });

  test('switching group billing off hides its tools, writes groups.none and lowers the meter', async () => {
    assert.equal(full.toolsVisible, full.toolsTotal, `a fresh profile shows everything: ${full.text}`);
    assert.equal(await tools.isGroupOn('demo/billing'), true, 'billing starts on');

    await tools.setGroup('demo/billing', false);

    const profile = await until(() => home.profile()?.groups?.none?.includes('demo/billing') && home.profile(), {
      what: 'groups.none billing in profiles/default.json',
    });
    assert.deepEqual(profile.groups.none, ['demo/billing'], "only the demo's billing is switched off");
    for (const name of BILLING) {
      const row = await tools.rowWhen(name, false);
      assert.match(row, /groups\.none demo\/billing/, `${name} says which rule hides it: ${row}`);
    }
    const row = await tools.rowWhen('demo__list_files', true);
    assert.doesNotMatch(row, /hidden by/, 'a files tool stays shown');

    const lowered = await shell.meterWhen((m) => m.toolsVisible < full.toolsVisible, 'fewer tools');
    assert.equal(lowered.toolsTotal, full.toolsTotal, 'the total stays');
    assert.equal(lowered.toolsVisible, full.toolsVisible - 8, `the 8 billing tools are gone: ${lowered.text}`);
    assert.ok(lowered.tokensVisible < full.tokensVisible, `fewer tokens: ${full.text} -> ${lowered.text}`);
    assert.equal(lowered.tokensTotal, full.tokensTotal, 'the token total stays');
  });

  test('a running mcp-sieve serve host is told of a switch and lists fewer tools', async () => {
    host = await StdioHost.start(home, 'default');
    // Wait until the host's proxy has both servers, so the list_changed
    // that counts is the one the switch causes.
    const listed = await until(
      async () => {
        const list = await host.tools();
        return list.some((t) => t.name.startsWith('demo__')) && list.some((t) => t.name.startsWith('everything__'))
          ? list
          : null;
      },
      { timeout: LAUNCH_TIMEOUT, what: "the host's proxy to list both servers" },
    );
    assert.ok(
      ADMIN.every((name) => listed.some((t) => t.name === name)),
      'the admin tools are listed before the switch',
    );
    const seen = host.notifications.length;

    await tools.setGroup('demo/admin', false);
    await until(() => home.profile()?.groups?.none?.includes('demo/admin'), { what: 'groups.none demo/admin on disk' });

    // A list_changed, then a list without the admin group; an unrelated
    // list_changed before it (a server's own) is waited past.
    let from = seen;
    const narrowed = await until(
      async () => {
        from = (await host.notification('notifications/tools/list_changed', { from })) + 1;
        const list = await host.tools();
        return list.every((t) => !(t._meta?.[GROUPS_META] ?? []).includes('demo/admin')) ? list : null;
      },
      { what: 'tools/list_changed and a list without the admin tools' },
    );
    assert.ok(narrowed.length < listed.length, `the host lists fewer tools: ${listed.length} -> ${narrowed.length}`);
    for (const name of ADMIN) {
      assert.ok(!narrowed.some((t) => t.name === name), `${name} is no longer listed`);
    }
    assert.ok(narrowed.some((t) => t.name === 'demo__list_files'), 'the rest stays listed');
    assert.equal(
      narrowed.length,
      (await shell.meterWhen((m) => m.toolsVisible < full.toolsVisible - 8, 'the admin tools gone')).toolsVisible,
      'the host lists what the meter counts',
    );
  });

  test('a tag expression that does not read is refused with its column; one that does hides what it excludes', async () => {
    const field = await app.find('tag-expr');
    await typeInto(field, 'not (dangerous');
    await (await app.find('tag-expr-apply')).click();
    const refusal = await until(
      async () => {
        for (const alert of await app.driver.findElements(By.css('[role="alert"]'))) {
          const text = await alert.getText();
          if (text.includes('column')) return text;
        }
        return null;
      },
      { what: 'the refusal of the expression' },
    );
    assert.match(refusal, /column 15/, `says where: ${refusal}`);
    assert.equal(home.profile()?.tags?.expr, undefined, 'nothing written');

    await typeInto(field, 'not dangerous');
    await (await app.find('tag-expr-apply')).click();
    await until(() => home.profile()?.tags?.expr === 'not dangerous', { what: 'tags.expr in profiles/default.json' });
    const row = await tools.rowWhen('demo__purge_closed_issues', false);
    assert.match(row, /tags\.expr "not dangerous" does not hold/, `the row says why: ${row}`);
  });

  test("a tool's text is edited on its row, and a try calls it and shows the answer", async () => {
    await tools.rowWhen('demo__echo', true);
    await (await app.find('tool-edit-text-demo__echo')).click();
    await typeInto(await app.find('tool-description-demo__echo'), 'Says it back.');
    await (await app.find('tool-text-save-demo__echo')).click();
    await until(() => home.config()?.overlays?.some((o) => o.match === 'demo__echo' && o.description === 'Says it back.'), {
      what: 'an overlay for demo__echo in config.json',
    });
    // WebKit leaves a line-clamped paragraph out of an element's text:
    // the description is read from its title, which holds the whole text.
    await until(
      async () => {
        const row = await app.find('tool-row-demo__echo');
        const description = await row.findElement(By.css('p.description'));
        return (await description.getAttribute('title')) === 'Says it back.';
      },
      { what: 'the row to show the new description' },
    );

    await (await app.find('tool-try-demo__echo')).click();
    await typeInto(await app.find('tool-try-demo__echo-text'), 'hello from the app');
    await (await app.find('tool-try-run-demo__echo')).click();
    const result = await until(
      async () => {
        const text = await (await app.find('tool-try-result-demo__echo')).getText();
        return text.includes('hello from the app') ? text : null;
      },
      { what: "the try's answer" },
    );
    assert.match(result, /hello from the app/);
  });
});
