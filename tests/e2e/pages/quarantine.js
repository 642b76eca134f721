// The Quarantine screen: the tools held because they are new or changed,
// each with its approved and new definition side by side, Approve and
// Keep hidden; the quarantine setting; the count on the sidebar button.

import { testId } from '../support/app.js';
import { until } from '../support/wait.js';

export class QuarantinePage {
  /** @param {import('../support/app.js').App} app */
  constructor(app) {
    this.app = app;
  }

  /**
   * Waits until `exposedName` is listed, to review (`keptHidden` false) or
   * kept hidden (true); returns its element.
   */
  async itemWhen(exposedName, keptHidden, timeout = undefined) {
    return until(
      async () => {
        const item = await this.app.find(`quarantine-item-${exposedName}`);
        return (await item.getAttribute('data-kept-hidden')) === String(keptHidden) ? item : null;
      },
      { timeout, what: `${exposedName} in quarantine with data-kept-hidden="${keptHidden}"` },
    );
  }

  /** The text of the approved definition of `exposedName`. */
  async approvedText(exposedName) {
    return (await this.app.find(`quarantine-old-${exposedName}`)).getText();
  }

  /** The text of the definition in quarantine. */
  async pendingText(exposedName) {
    return (await this.app.find(`quarantine-new-${exposedName}`)).getText();
  }

  async approve(exposedName) {
    await this.#press(`quarantine-approve-${exposedName}`);
  }

  async keepHidden(exposedName) {
    await this.#press(`quarantine-keep-${exposedName}`);
  }

  /** Clicks a decision's button once it is enabled (not while another decision is written). */
  async #press(id) {
    await until(async () => (await this.app.find(id)).isEnabled(), { what: `${id} to be enabled` });
    await (await this.app.find(id)).click();
  }

  /** The empty state's text, once nothing is held. */
  async emptyText(timeout = undefined) {
    return until(
      async () => {
        const [empty] = await this.app.driver.findElements(testId('quarantine-empty'));
        return empty ? empty.getText() : null;
      },
      { timeout, what: 'the empty state of the Quarantine screen' },
    );
  }

  /** The number on the sidebar's Quarantine button, 0 when it shows none. */
  async count() {
    const [badge] = await this.app.driver.findElements(testId('quarantine-count'));
    return badge ? Number(await badge.getText()) : 0;
  }

  /** Whether the quarantine setting's switch is on. */
  async settingOn() {
    return (await this.app.find('quarantine-setting')).isSelected();
  }
}
