// The "Connect a host" screen: the app's HTTP endpoint, and per host (under
// its row's "Connect by hand") the exact config snippet, in the host's own
// format, and a writer into the host's config file.

import { By } from 'selenium-webdriver';
import { typeInto } from '../support/app.js';
import { until } from '../support/wait.js';
import { HostsPage } from './hosts.js';

export class ConnectPage {
  /** @param {import('../support/app.js').App} app */
  constructor(app) {
    this.app = app;
    this.hosts = new HostsPage(app);
  }

  /** `snippet-<host>`'s JSON (a JSON host's), once it is loaded. */
  async snippet(host) {
    const text = await until(
      async () => {
        const value = await this.hosts.snippetText(host);
        return value.trim().startsWith('{') ? value : null;
      },
      { what: `the ${host} snippet to be JSON` },
    );
    return JSON.parse(text);
  }

  /** The host's "Connect by hand" block, opened: the section around its snippet. */
  async #card(host) {
    const block = await this.app.find(`snippet-${host}`);
    await this.hosts.reveal(block);
    return block.findElement(By.xpath('ancestor::section[1]'));
  }

  /**
   * Presses "Write into <Host>'s config", with `file` typed in the path
   * field first when given (the host's usual file otherwise); returns the
   * sentence that reports it.
   */
  async write(host, file) {
    const card = await this.#card(host);
    await typeInto(await card.findElement(By.css('input')), file ?? '');
    await card.findElement(By.xpath('.//button[starts-with(normalize-space(), "Write into")]')).click();
    return until(
      async () => {
        const reports = await card.findElements(By.css('[role="status"], [role="alert"]'));
        return reports.length > 0 ? reports[0].getText() : null;
      },
      { what: `the ${host} write to be reported` },
    );
  }
}
