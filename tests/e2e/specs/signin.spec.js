// "Sign in" on a server's row: the MCP TypeScript SDK's example server with
// `--oauth` (a real MCP server behind a real authorization server with
// dynamic registration, from tests/clients' npm packages) is `needs-login`
// until the button is pressed; the app then signs in through $BROWSER
// (tests/clients/follow-redirect.sh, a headless browser that follows the
// authorization server's redirects back to the app's loopback callback),
// keeps the sign-in out of config.json, and the server comes up.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ServersPage } from '../pages/servers.js';
import { Shell } from '../pages/shell.js';
import { App } from '../support/app.js';
import { env, ROOT } from '../support/env.js';
import { Home } from '../support/home.js';
import { LAUNCH_TIMEOUT, until } from '../support/wait.js';

const CLIENTS = path.join(ROOT, 'tests', 'clients');
const EXAMPLE = path.join(
  CLIENTS,
  'node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js',
);

/** A port nothing listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function listening(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('Signing in to a server', () => {
  let server;
  let home;
  let app;
  let servers;

  before(async () => {
    assert.ok(existsSync(EXAMPLE), `the MCP SDK's example server is installed: ${EXAMPLE}`);
    const [mcp, auth] = [await freePort(), await freePort()];
    server = spawn(env.node22, [EXAMPLE, '--oauth'], {
      env: { ...process.env, MCP_PORT: String(mcp), MCP_AUTH_PORT: String(auth) },
      stdio: 'ignore',
    });
    for (const port of [mcp, auth]) {
      await until(() => listening(port), { what: `the SDK's example server on port ${port}` });
    }
    home = new Home({ servers: { sdk: { type: 'http', url: `http://localhost:${mcp}/mcp` } } });
    app = await App.launch(home, { env: { BROWSER: path.join(CLIENTS, 'follow-redirect.sh') } });
    servers = new ServersPage(app);
    await new Shell(app).open('servers');
  });

  after(async () => {
    await app?.quit();
    server?.kill();
    home?.remove();
  });

  test('a server that wants a sign-in says so, and Sign in brings it up', async () => {
    const waiting = await servers.rowWhen('sdk', 'needs-login', LAUNCH_TIMEOUT);
    assert.match(waiting, /sign in with `?mcp-sieve servers login sdk/, `the row says what to do: ${waiting}`);

    await (await app.find('server-sign-in-sdk')).click();
    const up = await servers.rowWhen('sdk', 'up', LAUNCH_TIMEOUT);
    assert.match(up, /\d+ tools/, `the signed-in server lists its tools: ${up}`);

    const secrets = await until(
      () => {
        const file = path.join(home.dir, 'secrets.json');
        return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
      },
      { what: 'the sign-in kept in secrets.json (no keychain in this session)' },
    );
    assert.ok(secrets['oauth/sdk'], 'the sign-in is kept under oauth/sdk');
    const config = readFileSync(home.configPath, 'utf8');
    assert.doesNotMatch(config, /access_token|refresh_token|Bearer/, 'config.json holds no token');
  });
});
