// The Servers screen's registry: a search across a registry's pages (an MCP
// registry of the v0.1 API on loopback, tests/fixtures/registry/serve.py,
// serving real servers' server.json entries two a page), a server's form
// with its secret asked as a password, the command shown before anything
// is written, and the server added on confirmation, its secret kept out of
// config.json.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { By, Key } from 'selenium-webdriver';
import { ServersPage } from '../pages/servers.js';
import { Shell } from '../pages/shell.js';
import { App, typeInto } from '../support/app.js';
import { demoServer, Home } from '../support/home.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

const fixtures = fileURLToPath(new URL('../../fixtures/registry', import.meta.url));

/** serve.py on a free loopback port; resolves to its URL. */
async function startRegistry(log) {
  const child = spawn('python3', [path.join(fixtures, 'serve.py'), fixtures, '--page-size', '2', '--log', log], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    child.on('error', reject);
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  return { child, url: line.replace(/^serving /, '') };
}

describe('Servers from the MCP Registry', () => {
  let home;
  let registry;
  let app;
  let shell;
  let servers;

  before(async () => {
    home = new Home({ servers: { demo: demoServer() } });
    registry = await startRegistry(home.file('registry.log'));
    home.writeJson(home.configPath, { ...home.config(), settings: { registries: [registry.url] } });
    app = await App.launch(home, { env: { MCP_SIEVE_SECRETS: 'file' } });
    shell = new Shell(app);
    servers = new ServersPage(app);
    await shell.open('servers');
  });

  after(async () => {
    await app?.quit();
    registry?.child.kill();
    home?.remove();
  });

  test('a search lists the servers of every page, each once', async () => {
    await servers.rowWhen('demo', 'up', LAUNCH_TIMEOUT);
    const search = await app.find('registry-search');
    await typeInto(search, 'io.github');
    await search.sendKeys(Key.ENTER);
    const section = await app.locate(By.css('section[aria-labelledby="registry-title"]'));
    // Page one holds github-mcp-server; context7 comes on page three.
    await until(
      async () => {
        const found = await app.driver.findElements(By.css('[data-testid="registry-result-io.github.upstash/context7"]'));
        if (found.length > 0) return true;
        const alerts = await app.driver.findElements(By.css('[role="alert"]'));
        for (const alert of alerts) {
          const text = await alert.getText();
          if (text) throw new Error(`the page says: ${text}`);
        }
        return null;
      },
      { what: 'the search results' },
    ).catch(async (error) => {
      const log = readFileSync(home.file('registry.log'), { encoding: 'utf8', flag: 'a+' });
      throw new Error(`${error.message}; the section shows: ${await section.getText()}; the registry was asked: ${log}`);
    });
    await app.find('registry-result-io.github.github/github-mcp-server');
    const context7 = await app.find('registry-result-io.github.upstash/context7');
    assert.match(await context7.getText(), /npm @upstash\/context7-mcp@1\.0\.26/);
    const pages = readFileSync(home.file('registry.log'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('/v0.1/servers?'));
    assert.equal(pages.length, 3, `three pages read: ${pages}`);
  });

  test('adding shows the command first and writes only once confirmed', async () => {
    const secret = 'e2e-context7-key-91c4';
    await (await app.find('registry-add-io.github.upstash/context7')).click();
    const key = await app.find('registry-input-CONTEXT7_API_KEY');
    assert.equal(await key.getAttribute('type'), 'password', 'a secret is typed unseen');
    await typeInto(key, secret);
    await (await app.find('registry-review')).click();
    const command = await (await app.find('registry-command')).getText();
    assert.equal(command, 'CONTEXT7_API_KEY=(secret) npx -y @upstash/context7-mcp@1.0.26');
    assert.equal(home.config().mcpServers.context7, undefined, 'nothing is written before the confirmation');

    await (await app.find('registry-confirm')).click();
    await app.find('server-row-context7', LAUNCH_TIMEOUT);
    const written = await until(async () => home.config().mcpServers.context7 ?? null, {
      what: 'context7 in config.json',
    });
    assert.deepEqual(written.args, ['-y', '@upstash/context7-mcp@1.0.26']);
    assert.equal(written.env.CONTEXT7_API_KEY, '${secret:context7/env/CONTEXT7_API_KEY}');
    assert.equal(written.origin.name, 'io.github.upstash/context7');
    assert.doesNotMatch(readFileSync(home.configPath, 'utf8'), new RegExp(secret));
  });
});
