// The Servers screen: a row per server of config.json with its live state,
// the add form, and the import of a host's servers with a preview.

import { By, Select } from 'selenium-webdriver';
import { typeInto } from '../support/app.js';
import { until } from '../support/wait.js';

export class ServersPage {
  /** @param {import('../support/app.js').App} app */
  constructor(app) {
    this.app = app;
  }

  async row(name, timeout) {
    return this.app.find(`server-row-${name}`, timeout);
  }

  /** Waits until server `name`'s row has `data-state="<state>"`; returns the row's text. */
  async rowWhen(name, state, timeout) {
    return until(
      async () => {
        const row = await this.row(name, timeout);
        return (await row.getAttribute('data-state')) === state ? row.getText() : null;
      },
      { timeout, what: `server ${name} to be ${state}` },
    );
  }

  /** The import form: its section is named by its heading. */
  async #importForm() {
    return this.app.locate(
      By.css('section[aria-labelledby="import-title"] form'),
      undefined,
      'the import form',
    );
  }

  /**
   * Asks for the preview of importing `host`'s servers from `file`; returns
   * the preview's text once it shows.
   */
  async previewImport(hostTitle, file) {
    const form = await this.#importForm();
    await new Select(await form.findElement(By.css('select'))).selectByVisibleText(hostTitle);
    await typeInto(await form.findElement(By.css('input')), file);
    await form.findElement(By.xpath('.//button[normalize-space()="Preview"]')).click();
    return until(
      async () => {
        const report = await form.findElements(By.css('[aria-live="polite"]'));
        return report.length > 0 ? report[0].getText() : null;
      },
      { what: 'the import preview' },
    );
  }

  /** Presses the preview's "Add N server(s)"; returns the report's text. */
  async commitImport() {
    const form = await this.#importForm();
    await form.findElement(By.xpath('.//button[starts-with(normalize-space(), "Add ")]')).click();
    return until(
      async () => {
        const text = await form.getText();
        return text.includes('Imported.') ? text : null;
      },
      { what: 'the import to be reported done' },
    );
  }
}
