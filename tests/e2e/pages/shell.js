// What every screen shares: the sidebar's screen buttons, the select of the
// profile being edited and the token meter.

import { Select } from 'selenium-webdriver';
import { until } from '../support/wait.js';

const NAV = {
  servers: 'nav-servers',
  tools: 'nav-tools',
  labels: 'nav-labels',
  quarantine: 'nav-quarantine',
  profiles: 'nav-profiles',
  tasks: 'nav-tasks',
  connect: 'nav-connect',
};

export const SCREENS = Object.keys(NAV);

/** The numbers of the meter's text, `T / TT tools` and `K / KK tokens`. */
export function parseMeter(text) {
  const tools = /(\d+)\s*\/\s*(\d+)\s*tools/.exec(text);
  const tokens = /(\d+)\s*\/\s*(\d+)\s*tokens/.exec(text);
  if (!tools || !tokens) return null;
  return {
    toolsVisible: Number(tools[1]),
    toolsTotal: Number(tools[2]),
    tokensVisible: Number(tokens[1]),
    tokensTotal: Number(tokens[2]),
    text,
  };
}

export class Shell {
  /** @param {import('../support/app.js').App} app */
  constructor(app) {
    this.app = app;
  }

  /** Opens `screen` (servers, tools, labels, quarantine, profiles, tasks, connect). */
  async open(screen) {
    const button = await this.app.find(NAV[screen]);
    await button.click();
    await until(async () => (await button.getAttribute('aria-current')) === 'page', {
      what: `the ${screen} screen to be the current one`,
    });
  }

  async profileSelect() {
    return new Select(await this.app.find('profile-select'));
  }

  /** The name of the profile being edited. */
  async editing() {
    return (await this.app.find('profile-select')).getAttribute('value');
  }

  async meterText() {
    return (await this.app.find('token-meter')).getText();
  }

  /** The meter's numbers, once it shows them (not "Counting…"). */
  async meter() {
    return until(async () => parseMeter(await this.meterText()), { what: 'the token meter to show its counts' });
  }

  /** The meter's numbers once `accept(numbers)` holds, e.g. all servers counted. */
  async meterWhen(accept, what, timeout = undefined) {
    return until(
      async () => {
        const numbers = parseMeter(await this.meterText());
        return numbers && accept(numbers) ? numbers : null;
      },
      { timeout, what: `the token meter to show ${what}` },
    );
  }
}
