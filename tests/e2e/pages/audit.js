// The Audit screen: the calls hosts made through the proxies, newest
// first, with their status, the filters and More.

import { testIdPrefix } from '../support/app.js';
import { until } from '../support/wait.js';

const ROW = 'audit-row-';

export class AuditPage {
  /** @param {import('../support/app.js').App} app */
  constructor(app) {
    this.app = app;
  }

  /** Opens the screen from the sidebar. */
  async open() {
    const button = await this.app.find('nav-audit');
    await button.click();
    await until(async () => (await button.getAttribute('aria-current')) === 'page', {
      what: 'the audit screen to be the current one',
    });
  }

  /** The rows shown, top to bottom: `{id, status, text}`. */
  async rows() {
    const rows = await this.app.driver.findElements(testIdPrefix(ROW));
    return Promise.all(
      rows.map(async (row) => ({
        id: (await row.getAttribute('data-testid')).slice(ROW.length),
        status: await row.getAttribute('data-status'),
        text: await row.getText(),
      })),
    );
  }

  /** Waits for the rows to be as `probe` wants them; returns them. */
  async rowsWhen(probe, what) {
    return until(
      async () => {
        const rows = await this.rows();
        return probe(rows) ? rows : null;
      },
      { what },
    );
  }

  /**
   * Picks only `statuses` in the status filter (none: all), as Ctrl-clicks
   * would, and lets the screen hear the change.
   */
  async filterStatus(statuses) {
    const select = await this.app.find('audit-filter-status');
    await this.app.driver.executeScript(
      `const [select, picked] = arguments;
       for (const option of select.options) option.selected = picked.includes(option.value);
       select.dispatchEvent(new Event('change', { bubbles: true }));`,
      select,
      statuses,
    );
  }
}
