// Labelling: tools selected on the Tools screen and the bar that labels
// them (a group, a tag, a concern's value), and the Labels screen (derived
// groups with their renames, overlays as rules, concern definitions).

import { By, Key, Select } from 'selenium-webdriver';
import { typeInto } from '../support/app.js';
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

  /** The text of concern `name`'s definition. */
  async concernText(name) {
    return (await this.app.find(`concern-def-${name}`)).getText();
  }
}
