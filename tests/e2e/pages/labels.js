// Labelling: tools selected on the Tools screen and the bar that labels
// them (a group, a tag, a move between groups, a concern's value), and the
// Labels screen (derived groups with their renames, overlays as rules and
// their forms, concern definitions).

import { By, Key, Select } from 'selenium-webdriver';
import { testId, typeInto } from '../support/app.js';
import { until } from '../support/wait.js';

export class LabelsPage {
  /** @param {import('../support/app.js').App} app */
  constructor(app) {
    this.app = app;
  }

  // The Tools screen's selection

  async checkbox(exposedName) {
    return this.app.find(`tool-select-${exposedName}`);
  }

  async isSelected(exposedName) {
    return (await this.checkbox(exposedName)).isSelected();
  }

  /** Ticks `exposedName`'s checkbox (its row must be on the page) and waits until it reads ticked. */
  async select(exposedName) {
    if (await this.isSelected(exposedName)) return;
    await (await this.checkbox(exposedName)).click();
    await until(() => this.isSelected(exposedName), { what: `${exposedName} to be selected` });
  }

  /**
   * Picks `value` (or `none`) in the bar's `label-concern-<concern>`: the
   * value is set on the selected tools.
   */
  async setConcern(concern, value) {
    const select = await this.app.find(`label-concern-${concern}`);
    await until(() => select.isEnabled(), { what: `label-concern-${concern} to be enabled` });
    await new Select(select).selectByValue(value);
  }

  /**
   * Chooses `from` in the bar's `label-move-from` (a group the selected
   * tools are in), types `to` and moves them.
   */
  async moveToGroup(from, to) {
    const select = await this.app.find('label-move-from');
    await until(
      async () => (await select.findElements(By.css(`option[value="${from}"]`))).length > 0,
      { what: `label-move-from to offer ${from}` },
    );
    await new Select(select).selectByValue(from);
    const field = await this.app.find('label-move-to');
    await typeInto(field, to);
    await until(async () => (await field.getAttribute('value')) === to, { what: `label-move-to to read "${to}"` });
    const move = await this.app.find('label-move-apply');
    await until(() => move.isEnabled(), { what: 'label-move-apply to be enabled' });
    await move.click();
  }

  /** Types `group` into the bar and adds the selected tools to it. */
  async addToGroup(group) {
    await typeInto(await this.app.find('label-group-input'), group);
    await (await this.app.find('label-group-apply')).click();
  }

  // The Labels screen

  /** Types `to` into derived group `group`'s rename field and presses Enter. */
  async renameGroup(group, to) {
    const field = await this.app.find(`group-rename-${group}`);
    await typeInto(field, to);
    await until(async () => (await field.getAttribute('value')) === to, { what: `the rename field to read "${to}"` });
    await field.sendKeys(Key.ENTER);
  }

  /** The text of every overlay's rule, by its index, once there are `count`. */
  async rulesWhen(count) {
    return until(
      async () => {
        const rows = await this.app.driver.findElements(By.css('[data-testid^="overlay-row-"]'));
        if (rows.length !== count) return null;
        return Promise.all(rows.map((row) => row.getText()));
      },
      { what: `${count} overlay rules on the Labels screen` },
    );
  }

  /**
   * Opens rule `index`'s form, replaces the fields `change` names
   * (`match`, `groups`, `tags`, `removeGroups`, `removeTags`, `title`,
   * `description`: what is typed) and saves; waits until the form closes,
   * which it does once the library has written the rule.
   */
  async editRule(index, change) {
    await (await this.app.find(`overlay-edit-${index}`)).click();
    const ids = {
      match: 'match',
      groups: 'groups',
      tags: 'tags',
      removeGroups: 'remove-groups',
      removeTags: 'remove-tags',
      title: 'title',
      description: 'description',
    };
    for (const [key, text] of Object.entries(change)) {
      const field = await this.app.find(`overlay-${ids[key]}-${index}`);
      await typeInto(field, text);
      await until(async () => (await field.getAttribute('value')) === text, {
        what: `rule ${index}'s ${key} to read "${text}"`,
      });
    }
    await (await this.app.find(`overlay-save-${index}`)).click();
    await until(
      async () => (await this.app.driver.findElements(testId(`overlay-match-${index}`))).length === 0,
      { what: `rule ${index}'s form to close once saved` },
    );
  }

  /** The text of rule `index`'s row once `test` holds for it. */
  async ruleWhen(index, test, what) {
    return until(
      async () => {
        const text = await (await this.app.find(`overlay-row-${index}`)).getText();
        return test(text) ? text : null;
      },
      { what: `rule ${index} ${what}` },
    );
  }

  /** The text of concern `name`'s definition. */
  async concernText(name) {
    return (await this.app.find(`concern-def-${name}`)).getText();
  }
}
