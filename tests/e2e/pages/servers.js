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

  /** The add form: its section is named by its heading. */
  async #addForm() {
    return this.app.locate(By.css('section[aria-labelledby="add-title"] form'), undefined, 'the add form');
  }

  /**
   * Adds an HTTP server through the form: `name`, `url`, and the fields of
   * its sign-in section by their labels (`{ 'Client ID': 'x', ... }`),
   * `serviceAccount` ticking that box. Returns once the form is emptied
   * (the server added) or fails with the form's error.
   */
  async addHttp(name, url, oauth = {}, { serviceAccount = false } = {}) {
    const form = await this.#addForm();
    const field = (label) => form.findElement(By.xpath(`.//label[span[normalize-space()="${label}"]]//input`));
    await typeInto(await field('Name'), name);
    await form.findElement(By.xpath('.//label[contains(normalize-space(), "URL (HTTP)")]/input')).click();
    await typeInto(await field('URL'), url);
    await form.findElement(By.xpath('.//summary[starts-with(normalize-space(), "Sign-in (OAuth)")]')).click();
    for (const [label, value] of Object.entries(oauth)) await typeInto(await field(label), value);
    if (serviceAccount) {
      await form.findElement(By.xpath('.//label[starts-with(normalize-space(), "Service account")]/input')).click();
    }
    await form.findElement(By.xpath('.//button[normalize-space()="Add server"]')).click();
    await until(
      async () => {
        const error = await form.findElements(By.css('[role="alert"]'));
        if (error.length > 0 && (await error[0].getText()) !== '') {
          throw new Error(`the add form says: ${await error[0].getText()}`);
        }
        return (await (await field('Name')).getAttribute('value')) === '' ? true : null;
      },
      { what: `server ${name} to be added` },
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
