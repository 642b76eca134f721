// The hosts on the "Connect a host" screen (DESIGN §8, §11): a row per host
// with its state, routing one or all of them through MCP Sieve and giving
// them back, and each host's "Connect by hand" block.

import { By, Select } from 'selenium-webdriver';
import { until } from '../support/wait.js';

export class HostsPage {
  /** @param {import('../support/app.js').App} app */
  constructor(app) {
    this.app = app;
  }

  /** `host-row-<host>`, once the list is loaded. */
  async row(host) {
    return this.app.find(`host-row-${host}`);
  }

  /** The row's `data-state`: absent, installed or routed. */
  async state(host) {
    return (await this.row(host)).getAttribute('data-state');
  }

  /** Waits until `host`'s row is in `state`. */
  async stateWhen(host, state) {
    return until(async () => (await this.state(host)) === state, { what: `host-row-${host} to be ${state}` });
  }

  /**
   * Opens the folds `element` is inside (the hosts not found here, a
   * row's "Connect by hand"), outermost first, by their summaries as a
   * person would, so its text can be read.
   */
  async reveal(element) {
    const folds = await element.findElements(By.xpath('ancestor-or-self::details'));
    for (const fold of folds) {
      if ((await fold.getAttribute('open')) === null) {
        await (await fold.findElement(By.xpath('./summary'))).click();
        await until(async () => (await fold.getAttribute('open')) !== null, { what: 'a fold to open' });
      }
    }
  }

  /** The row's text (opened first when it is among the hosts not found here). */
  async text(host) {
    const row = await this.row(host);
    await this.reveal(row);
    return row.getText();
  }

  /** Whether the row offers Route (`host-route-<host>`). */
  async canRoute(host) {
    const row = await this.row(host);
    return (await row.findElements(By.css(`[data-testid="host-route-${host}"]`))).length > 0;
  }

  /** The text of the row's own report (what its last action did), once it has one. */
  async #outcome(row, host, before) {
    return until(
      async () => {
        const reports = await row.findElements(By.xpath('./p[@role="status" or @role="alert"]'));
        const text = reports.length > 0 ? await reports.at(-1).getText() : null;
        return text && text !== before ? text : null;
      },
      { what: `${host}'s row to report what it did` },
    );
  }

  async #lastOutcome(row) {
    const reports = await row.findElements(By.xpath('./p[@role="status" or @role="alert"]'));
    return reports.length > 0 ? reports.at(-1).getText() : null;
  }

  /** Picks `profile` (a name, or `''` for the host's own) in the row's profile select. */
  async chooseProfile(host, profile) {
    const select = await this.app.find(`host-profile-${host}`);
    await new Select(select).selectByValue(profile);
    await until(async () => (await select.getAttribute('value')) === profile, {
      what: `host-profile-${host} to show ${profile || 'its own'}`,
    });
  }

  /** Presses `host-route-<host>`; returns the sentences that report it. */
  async route(host) {
    const row = await this.row(host);
    const before = await this.#lastOutcome(row);
    await (await this.app.find(`host-route-${host}`)).click();
    return this.#outcome(row, host, before);
  }

  /** Presses `host-unroute-<host>`; returns the sentences that report it. */
  async unroute(host) {
    const row = await this.row(host);
    const before = await this.#lastOutcome(row);
    await (await this.app.find(`host-unroute-${host}`)).click();
    return this.#outcome(row, host, before);
  }

  /** Presses `hosts-route-all`; returns the summary of what it did. */
  async routeAll() {
    const button = await this.app.find('hosts-route-all');
    const section = await button.findElement(By.xpath('ancestor::section[1]'));
    await until(() => button.isEnabled(), { what: 'hosts-route-all to be enabled' });
    await button.click();
    return until(
      async () => {
        const reports = await section.findElements(By.css('[role="status"], [role="alert"]'));
        return reports.length > 0 ? reports[0].getText() : null;
      },
      { what: 'routing every host to be reported' },
    );
  }

  /** The text of `snippet-<host>` once loaded, its row's "Connect by hand" opened. */
  async snippetText(host) {
    const block = await this.app.find(`snippet-${host}`);
    await this.reveal(block);
    return until(
      async () => {
        const text = await block.getText();
        return text && !text.startsWith('Loading') ? text : null;
      },
      { what: `the ${host} snippet` },
    );
  }
}
