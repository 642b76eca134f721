// "Sign in" on a server's row: the MCP TypeScript SDK's example server with
// `--oauth` (a real MCP server behind a real authorization server with
// dynamic registration, from tests/clients' npm packages) is `needs-login`
// until the button is pressed; the app then signs in through $BROWSER
// (tests/clients/follow-redirect.sh, a headless browser that follows the
// authorization server's redirects back to the app's loopback callback),
// keeps the sign-in out of config.json, and the server comes up. And a
// service account added through the form (tests/clients/
// oauth-refresh-server.mjs, the SDK's server parts with a client that gets
// tokens by the client credentials grant) comes up with no one signing in,
// its client secret in the secret store, not in config.json.

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
const SERVICE_SERVER = path.join(CLIENTS, 'oauth-refresh-server.mjs');
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

/**
 * Starts an OAuth-protected MCP server (`args` to Node 22, with `extra` in
 * its environment) on two free ports, `MCP_PORT` and `MCP_AUTH_PORT`, and
 * waits until both listen; the process and the MCP port.
 */
async function oauthServer(args, extra = {}) {
  const [mcp, auth] = [await freePort(), await freePort()];
  const server = spawn(env.node22, args, {
    env: { ...process.env, ...extra, MCP_PORT: String(mcp), MCP_AUTH_PORT: String(auth) },
    stdio: 'ignore',
  });
  for (const port of [mcp, auth]) {
    await until(() => listening(port), { what: `${path.basename(args[0])} on port ${port}` });
  }
  return { server, mcp };
}

/** The app on `home` with `$BROWSER` set, at the Servers screen. */
async function atServers(home, browser) {
  const app = await App.launch(home, { env: { BROWSER: browser } });
  await new Shell(app).open('servers');
  return { app, servers: new ServersPage(app) };
}

describe('Signing in to a server', () => {
  let server;
  let home;
  let app;
  let servers;

  before(async () => {
    assert.ok(existsSync(EXAMPLE), `the MCP SDK's example server is installed: ${EXAMPLE}`);
    let mcp;
    ({ server, mcp } = await oauthServer([EXAMPLE, '--oauth']));
    home = new Home({ servers: { sdk: { type: 'http', url: `http://localhost:${mcp}/mcp` } } });
    ({ app, servers } = await atServers(home, path.join(CLIENTS, 'follow-redirect.sh')));
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

describe('Adding a service account', () => {
  let server;
  let home;
  let app;
  let servers;
  let url;

  before(async () => {
    let mcp;
    ({ server, mcp } = await oauthServer([SERVICE_SERVER], {
      SERVICE_CLIENT_ID: 'robot',
      SERVICE_CLIENT_SECRET: 'robot-s3cret',
    }));
    url = `http://127.0.0.1:${mcp}/mcp`;
    home = new Home({ servers: {} });
    // No browser may open: a service account signs in by itself.
    ({ app, servers } = await atServers(home, '/bin/false'));
  });

  after(async () => {
    await app?.quit();
    server?.kill();
    home?.remove();
  });

  test('a server added with a client ID and secret as a service account comes up by itself', async () => {
    await servers.addHttp(
      'robot',
      url,
      { 'Client ID': 'robot', 'Client secret': 'robot-s3cret' },
      { serviceAccount: true },
    );
    const up = await servers.rowWhen('robot', 'up', LAUNCH_TIMEOUT);
    assert.match(up, /\d+ tools?/, `the service account's server lists its tools: ${up}`);

    const config = JSON.parse(readFileSync(home.configPath, 'utf8'));
    assert.deepEqual(config.mcpServers.robot.oauth, {
      grant: 'clientCredentials',
      clientId: 'robot',
      clientSecret: '${secret:robot/oauth/clientSecret}',
    });
    assert.doesNotMatch(readFileSync(home.configPath, 'utf8'), /robot-s3cret/, 'config.json holds no secret');
    const secrets = JSON.parse(readFileSync(path.join(home.dir, 'secrets.json'), 'utf8'));
    assert.equal(secrets['robot/oauth/clientSecret'], 'robot-s3cret', 'the secret is in the secret store');
    assert.ok(secrets['oauth/robot'], 'and so is the token the proxy got');
  });
});
