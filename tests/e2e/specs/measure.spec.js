// Measurements of the app, printed as a table and never asserted (speed is
// shown, not tested): the time from launch to an interactive window, the
// memory at rest, and the time from a group switch to the new token meter
// text with 2,000 tools (50 demo servers of 40 tools). The only assertion
// is that the switch changed the meter.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { parseMeter, Shell } from '../pages/shell.js';
import { ToolsPage } from '../pages/tools.js';
import { App } from '../support/app.js';
import { env } from '../support/env.js';
import { demoServer, Home } from '../support/home.js';
import { memoryAtRest, mib, ms, printTable } from '../support/measure.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

const SERVERS = 50;
const TOOLS = SERVERS * 40;

/**
 * Clicks the switch in the page and resolves, in the page's clock, when the
 * meter's text is new: no WebDriver round trip inside the measured time.
 */
const SWITCH_TO_METER = `
  const [toggle, meter, done] = arguments;
  const before = meter.textContent;
  const start = performance.now();
  const observer = new MutationObserver(() => {
    const text = meter.textContent;
    if (text !== before && /tools/.test(text) && /tokens/.test(text)) {
      observer.disconnect();
      done({ ms: performance.now() - start, before, text });
    }
  });
  observer.observe(meter, { subtree: true, childList: true, characterData: true });
  toggle.click();
`;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

describe('Measurements (printed, not asserted)', () => {
  const rows = [];

  after(() => printTable(`MCP Sieve app (${process.env.E2E_APP_LABEL ?? env.app}), under Xvfb`, rows));

  test('launch to an interactive window, and memory at rest (demo + server-everything)', async () => {
    const home = new Home();
    const app = await App.launch(home);
    try {
      rows.push([
        'launch → first nav button clickable',
        ms(app.launchMs),
        `WebDriver session made after ${ms(app.sessionMs)}`,
      ]);
      await new Shell(app).meterWhen((m) => m.toolsTotal > 40, 'both servers', LAUNCH_TIMEOUT);
      const memory = await memoryAtRest(app.pid);
      const unsettled = memory.settled ? '' : ' (still changing after 60 s)';
      rows.push([
        'memory at rest: app process (RSS)',
        mib(memory.appRss),
        `PSS ${mib(memory.appPss)}${unsettled}`,
      ]);
      rows.push(['memory at rest: WebKit processes (RSS)', mib(memory.webkitRss), memory.webkit.join(', ')]);
      rows.push([
        'memory at rest: app + WebKit (RSS)',
        mib(memory.appRss + memory.webkitRss),
        `PSS ${mib(memory.appPss + memory.webkitPss)}`,
      ]);
      rows.push(['upstream servers it runs (RSS, not above)', mib(memory.serversRss), `${memory.servers} processes`]);
    } finally {
      await app.quit();
      home.remove();
    }
  });

  // A server's own group: each of the demo servers has its billing.
  const BILLING = 'demo00/billing';

  test(`group switch → new token meter text with ${TOOLS} tools (${SERVERS} demo servers)`, async () => {
    const servers = {};
    for (let i = 0; i < SERVERS; i += 1) servers[`demo${String(i).padStart(2, '0')}`] = demoServer();
    const home = new Home({ servers });
    const app = await App.launch(home);
    try {
      rows.push([`launch with ${SERVERS} servers`, ms(app.launchMs), '']);
      const shell = new Shell(app);
      await shell.meterWhen((m) => m.toolsTotal === TOOLS, `${TOOLS} tools`, 180_000);
      await shell.open('tools');
      const tools = new ToolsPage(app);
      await app.driver.manage().setTimeouts({ script: 120_000 });

      const timings = [];
      for (const on of [false, true, false, true]) {
        await until(async () => (await tools.groupToggle(BILLING)).isEnabled(), {
          what: `the ${BILLING} switch to be enabled`,
        });
        const toggle = await tools.groupToggle(BILLING);
        const meter = await app.find('token-meter');
        const switched = await app.driver.executeAsyncScript(SWITCH_TO_METER, toggle, meter);
        const was = parseMeter(switched.before);
        const now = parseMeter(switched.text);
        assert.ok(now, `the meter shows counts after the switch: ${switched.text}`);
        assert.notEqual(
          now.toolsVisible,
          was.toolsVisible,
          `the switch changed the meter: ${switched.before} -> ${switched.text}`,
        );
        timings.push(switched.ms);
        // Settled: the switch shows the file's state before the next one.
        await until(async () => (await tools.isGroupOn(BILLING)) === on, {
          what: `${BILLING} to be ${on ? 'on' : 'off'}`,
        });
      }
      rows.push([
        `group switch → new meter text, ${TOOLS} tools (median of ${timings.length})`,
        ms(median(timings)),
        `each: ${timings.map((t) => Math.round(t)).join(', ')} ms (off, on, off, on; the 8 tools of ${BILLING})`,
      ]);
      const memory = await memoryAtRest(app.pid);
      rows.push([
        `memory at rest with ${TOOLS} tools: app + WebKit (RSS)`,
        mib(memory.appRss + memory.webkitRss),
        `app ${mib(memory.appRss)}, WebKit ${mib(memory.webkitRss)}; ` +
          `${memory.servers} servers ${mib(memory.serversRss)}` +
          (memory.settled ? '' : ' (still changing after 60 s)'),
      ]);
    } finally {
      await app.quit();
      home.remove();
    }
  });
});
