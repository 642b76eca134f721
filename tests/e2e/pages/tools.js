// The Tools screen: every primitive of every server under the profile being
// edited, the search and the group switches.

import { By, Select } from 'selenium-webdriver';
import { typeInto } from '../support/app.js';
import { until } from '../support/wait.js';

export class ToolsPage {
  /** @param {import('../support/app.js').App} app */
  constructor(app) {
    this.app = app;
  }

  /** Types `text` into the search field, replacing what was there. */
  async search(text) {
    const field = await this.app.find('tool-search');
    await typeInto(field, text);
    await until(async () => (await field.getAttribute('value')) === text, { what: `the search to read "${text}"` });
  }

  /**
   * Waits until the row of `exposedName` is shown (true) or hidden (false);
   * returns its text. The row is searched for by its name (the list shows
   * 100 rows a page) unless `search` is false.
   */
  async rowWhen(exposedName, visible, { search = true, timeout = undefined } = {}) {
    if (search) await this.search(exposedName);
    return until(
      async () => {
        const row = await this.app.find(`tool-row-${exposedName}`);
        return (await row.getAttribute('data-visible')) === String(visible) ? row.getText() : null;
      },
      { timeout, what: `${exposedName} to be ${visible ? 'shown' : 'hidden'} (data-visible="${visible}")` },
    );
  }

  /** Lists every row (`all`), the shown ones (`visible`) or the hidden ones (`hidden`). */
  async show(which) {
    const select = await this.app.locate(By.css('select[aria-label="Visibility"]'), undefined, 'the Visibility select');
    await new Select(select).selectByValue(which);
    await until(async () => (await select.getAttribute('value')) === which, { what: `the list to show ${which}` });
  }

  /** The exposed names of the rows on the page, in order. */
  async rowNames() {
    const rows = await this.app.driver.findElements(By.css('[data-testid^="tool-row-"]'));
    const ids = await Promise.all(rows.map((row) => row.getAttribute('data-testid')));
    return ids.map((id) => id.slice('tool-row-'.length));
  }

  async groupToggle(group) {
    return this.app.find(`group-toggle-${group}`);
  }

  /**
   * Waits until group `group`'s count beside its switch (`shown/total`
   * tools) passes `test`; returns `{shown, total}`.
   */
  async groupCountWhen(group, test, what) {
    return until(
      async () => {
        const item = await (await this.groupToggle(group)).findElement(By.xpath('./ancestor::li[1]'));
        const found = /(\d+)\/(\d+)/.exec(await item.getText());
        if (!found) return null;
        const count = { shown: Number(found[1]), total: Number(found[2]) };
        return test(count) ? count : null;
      },
      { what: `group ${group}'s count ${what}` },
    );
  }

  async isGroupOn(group) {
    return (await this.groupToggle(group)).isSelected();
  }

  /**
   * Clicks group `group`'s switch and waits until it shows `on`: the switch
   * follows the profile, so it turns only once the edit is written.
   */
  async setGroup(group, on) {
    if ((await this.isGroupOn(group)) === on) return;
    // Found again in each probe: a reload may render the switch anew.
    await until(async () => (await this.groupToggle(group)).isEnabled(), {
      what: `group ${group}'s switch to be enabled`,
    });
    await (await this.groupToggle(group)).click();
    await until(async () => (await this.isGroupOn(group)) === on, {
      what: `group ${group}'s switch to turn ${on ? 'on' : 'off'}`,
    });
  }
}
