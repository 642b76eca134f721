// The Tasks screen: the ledger's entries with their status, retry and
// cancel, the filters, and an entry's detail.

import { By } from 'selenium-webdriver';
import { testIdPrefix } from '../support/app.js';
import { until } from '../support/wait.js';

const ROW = 'task-row-';

export class TasksPage {
  /** @param {import('../support/app.js').App} app */
  constructor(app) {
    this.app = app;
  }

  async row(id) {
    return this.app.find(`${ROW}${id}`);
  }

  /** The ids of the rows shown, top to bottom. */
  async ids() {
    const rows = await this.app.driver.findElements(testIdPrefix(ROW));
    const ids = await Promise.all(rows.map((row) => row.getAttribute('data-testid')));
    return ids.map((id) => id.slice(ROW.length));
  }

  async status(id) {
    return (await this.row(id)).getAttribute('data-status');
  }

  /** Clicks Retry on `id`'s row and waits for a row that was not there; returns its id. */
  async retry(id) {
    const before = new Set(await this.ids());
    await (await this.app.find(`task-retry-${id}`)).click();
    return until(
      async () => (await this.ids()).find((other) => !before.has(other)),
      { what: `a new task row after retrying ${id}` },
    );
  }

  /** Opens `id`'s detail; returns its text once it shows the entry. */
  async detail(id) {
    const row = await this.row(id);
    await row.findElement(By.css('button[aria-label^="Show "]')).click();
    const pane = await this.app.locate(By.css('aside[aria-labelledby="detail-title"]'), undefined, 'the task detail');
    return until(
      async () => {
        const text = await pane.getText();
        return text.includes('Status') && text.includes(id) ? text : null;
      },
      { what: `the detail of ${id}` },
    );
  }

  /** The sentence the last retry left (role=status), once there is one. */
  async notice() {
    const notice = await this.app.locate(By.css('p[role="status"]'), undefined, 'the retry notice');
    return notice.getText();
  }
}
