// The Profiles screen: the profile list and the editor of the profile being
// edited (concerns, allow and deny patterns checked as they are typed).

import { By, Key, Select } from 'selenium-webdriver';
import { typeInto } from '../support/app.js';
import { until } from '../support/wait.js';

export class ProfilesPage {
  /** @param {import('../support/app.js').App} app */
  constructor(app) {
    this.app = app;
  }

  async concernSelect(concern) {
    return this.app.find(`concern-select-${concern}`);
  }

  /** The value `concern-select-<concern>` shows (a value, or `any`). */
  async concern(concern) {
    return (await this.concernSelect(concern)).getAttribute('value');
  }

  /**
   * Picks `value` (or `any`) for `concern` and waits until the select shows
   * it: the select keeps the file's value until the edit is written.
   */
  async chooseConcern(concern, value) {
    await until(async () => (await this.concernSelect(concern)).isEnabled(), {
      what: `concern-select-${concern} to be enabled`,
    });
    await new Select(await this.concernSelect(concern)).selectByValue(value);
    await until(async () => (await this.concern(concern)) === value, {
      what: `concern-select-${concern} to show ${value}`,
    });
  }

  /**
   * The field where a glob for `section.list` is typed. DESIGN §8 gives it
   * no test id; its accessible name is the contract the page offers.
   */
  async patternField(section, list) {
    return this.app.locate(
      By.css(`input[aria-label="New pattern for ${section}.${list}"]`),
      undefined,
      `the ${section}.${list} pattern field`,
    );
  }

  /** Types `text` into the `section.list` field (replacing what was there). */
  async typePattern(section, list, text) {
    const field = await this.patternField(section, list);
    await typeInto(field, text);
    return field;
  }

  /** Presses Enter in the `section.list` field: the form's Add. */
  async submitPattern(section, list) {
    const field = await this.patternField(section, list);
    await field.sendKeys(Key.ENTER);
  }

  /** The Add button beside the `section.list` field. */
  async addButton(section, list) {
    const field = await this.patternField(section, list);
    return field.findElement(By.xpath('following-sibling::button[@type="submit"]'));
  }

  /** The error the field shows (it names it with aria-describedby), once it shows one. */
  async patternError(section, list) {
    const field = await this.patternField(section, list);
    return until(
      async () => {
        if ((await field.getAttribute('aria-invalid')) !== 'true') return null;
        const id = await field.getAttribute('aria-describedby');
        return id ? (await this.app.driver.findElement(By.id(id))).getText() : null;
      },
      { what: `the ${section}.${list} field to show an error` },
    );
  }

  /** The patterns the editor lists for `section.list`. */
  async patterns(section, list) {
    const items = await this.app.driver.findElements(
      By.css(`ul[aria-labelledby="${section}-${list}-title"] code`),
    );
    return Promise.all(items.map((item) => item.getText()));
  }

  /** The card of profile `name` in the list. */
  async card(name) {
    return this.app.locate(
      By.xpath(`//li[contains(@class, "card")][.//strong[text()="${name}"]]`),
      undefined,
      `the card of profile ${name}`,
    );
  }

  /** Clicks "Make active" on `name`'s card. */
  async makeActive(name) {
    const card = await this.card(name);
    await (await card.findElement(By.xpath('.//button[text()="Make active"]'))).click();
  }

  /** Whether `name`'s card says it is the active profile. */
  async isActive(name) {
    const card = await this.card(name);
    return (await card.findElements(By.xpath('.//span[contains(@class, "chip") and text()="active"]'))).length > 0;
  }
}
