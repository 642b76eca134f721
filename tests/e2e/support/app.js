// The real app in real WebKit: a WebDriver session through tauri-driver,
// which has WebKitWebDriver start the built app. tauri-driver takes no
// environment per session, so the app is started through a small launcher
// script that gives it its own HOME, XDG_CONFIG_HOME, port and theme and
// records its pid (the launcher `exec`s, so the pid is the app's).

import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Builder, By, Capabilities, Key, until as ready } from 'selenium-webdriver';
import { env } from './env.js';
import { alive, descendants, signal } from './processes.js';
import { LAUNCH_TIMEOUT, TIMEOUT, until } from './wait.js';

/** The CSS selector of a DESIGN §8 test id. */
export function testId(id) {
  return By.css(`[data-testid="${id}"]`);
}

/** The CSS selector of every element whose test id starts with `prefix`. */
export function testIdPrefix(prefix) {
  return By.css(`[data-testid^="${prefix}"]`);
}

/**
 * Replaces the text of the input `field` by typing, as a person would, so
 * the page sees input events. The select-all chord goes in a call of its
 * own: WebKitWebDriver keeps Control held to the end of one call.
 */
export async function typeInto(field, text) {
  await field.sendKeys(Key.chord(Key.CONTROL, 'a'));
  await field.sendKeys(Key.BACK_SPACE);
  if (text) await field.sendKeys(text);
}

function shellQuote(value) {
  return `'${String(value).replaceAll("'", `'\\''`)}'`;
}

let launches = 0;

export class App {
  /**
   * Starts the app on `home` and waits until its window can be used.
   *
   * @param {import('./home.js').Home} home
   * @param {{theme?: 'light' | 'dark', env?: Record<string, string>, hostHome?: string, state?: string}} [options]
   *   `env`: more variables for the app (say, `BROWSER` for a sign-in);
   *   `hostHome`: the folder the app looks for the AI hosts' files in, as
   *   if it were the home folder (`--host-home`); `state`: a team's
   *   database the app manages instead of the home's files (`--state`).
   */
  static async launch(home, { theme = 'light', env: more = {}, hostHome, state } = {}) {
    launches += 1;
    const pidFile = home.file(`app-${launches}.pid`);
    const launcher = home.file(`launch-app-${launches}.sh`);
    const vars = {
      HOME: home.desktopHome,
      XDG_CONFIG_HOME: home.xdgConfig,
      // A free port: runs never fight over the embedded proxy's 8765.
      MCP_SIEVE_APP_PORT: '0',
      // No session bus of the user's: the single-instance plugin would hand
      // this launch to an app the user has open.
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/mcp-sieve-e2e-bus',
      NO_AT_BRIDGE: '1',
      // WebKit follows GTK's theme for prefers-color-scheme.
      GTK_THEME: theme === 'dark' ? 'Adwaita:dark' : 'Adwaita',
      ...more,
    };
    writeFileSync(
      launcher,
      [
        '#!/bin/sh',
        `echo $$ > ${shellQuote(pidFile)}`,
        // The app looks for the sentence model as a person's app does
        // (beside the program, in the spec's HOME), not where this run's
        // ./test.sh fetched it.
        'unset MCP_SIEVE_MODEL',
        ...Object.entries(vars).map(([name, value]) => `export ${name}=${shellQuote(value)}`),
        `exec ${shellQuote(env.app)} "$@"`,
        '',
      ].join('\n'),
    );
    chmodSync(launcher, 0o755);

    const capabilities = new Capabilities();
    capabilities.set('browserName', 'wry');
    const args = [
      '--home',
      home.dir,
      ...(hostHome ? ['--host-home', hostHome] : []),
      ...(state ? ['--state', state] : []),
    ];
    capabilities.set('tauri:options', { application: launcher, args });

    const started = performance.now();
    const driver = new Builder().usingServer(env.webdriverUrl).withCapabilities(capabilities).build();
    const app = new App(driver, home, pidFile);
    try {
      await driver.getSession();
      app.sessionMs = performance.now() - started;
      // Interactive: the first screen button is there, shown and enabled.
      const nav = await driver.wait(
        ready.elementLocated(testId('nav-servers')),
        LAUNCH_TIMEOUT,
        'the window never showed its sidebar',
      );
      await driver.wait(ready.elementIsVisible(nav), LAUNCH_TIMEOUT, 'the sidebar never became visible');
      await driver.wait(ready.elementIsEnabled(nav), LAUNCH_TIMEOUT, 'the sidebar never became enabled');
      app.launchMs = performance.now() - started;
      app.pid = await until(() => Number(readFileSync(pidFile, 'utf8').trim()) || null, {
        what: `the app's pid in ${pidFile}`,
      });
    } catch (error) {
      await app.quit();
      throw error;
    }
    return app;
  }

  constructor(driver, home, pidFile) {
    this.driver = driver;
    this.home = home;
    this.pidFile = pidFile;
    /** The app's process id. */
    this.pid = null;
    /** ms from asking for the session until it was made. */
    this.sessionMs = null;
    /** ms from asking for the session until the sidebar could be clicked. */
    this.launchMs = null;
  }

  /** The element with test id `id`, once it is in the page. */
  async find(id, timeout = TIMEOUT) {
    return this.driver.wait(ready.elementLocated(testId(id)), timeout, `no element with data-testid="${id}"`);
  }

  /** The element `by` finds, once it is in the page. */
  async locate(by, timeout = TIMEOUT, what = String(by)) {
    return this.driver.wait(ready.elementLocated(by), timeout, `never found ${what}`);
  }

  /** Ends the session and the app with every process it started. */
  async quit() {
    let pid = this.pid;
    if (!pid) {
      try {
        pid = Number(readFileSync(this.pidFile, 'utf8').trim()) || null;
      } catch {
        pid = null;
      }
    }
    // Taken before the app goes: its children (WebKit, upstream servers,
    // each in its own process group) would be orphaned otherwise.
    const tree = pid ? [pid, ...descendants(pid).map((p) => p.pid)] : [];
    try {
      await this.driver.quit();
    } catch {
      // The session may be gone with the window already.
    }
    // Closing the window hides it into the tray; the app keeps running.
    signal(tree, 'SIGTERM');
    try {
      await until(() => tree.every((p) => !alive(p)), { timeout: 10_000, what: "the app's processes to end" });
    } catch {
      signal(tree, 'SIGKILL');
      await until(() => tree.every((p) => !alive(p)), { timeout: 10_000, what: "the app's processes to die" });
    }
  }
}
