// Screenshots of the window's page into docs/screenshots/.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { env } from './env.js';

/** Resolves once the page has painted two more frames. */
const PAINTED = `
  const done = arguments[arguments.length - 1];
  requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
`;

/**
 * Saves what the webview shows as `<name>.png`; returns the file and its
 * bytes. WebKit hands over its last painted frame, which can still be the
 * previous screen just after a click, so a paint is waited for first.
 */
export async function screenshot(app, name) {
  await app.driver.executeAsyncScript(PAINTED);
  const png = Buffer.from(await app.driver.takeScreenshot(), 'base64');
  mkdirSync(env.screenshots, { recursive: true });
  const file = path.join(env.screenshots, `${name}.png`);
  writeFileSync(file, png);
  return { file, png };
}
