// What the run is made of: the built binaries, the third-party servers and
// the WebDriver endpoint, all handed over by scripts/e2e.sh in the
// environment. A missing one stops the run with the variable to set, never
// a skip.

import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The clone this folder belongs to. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function required(name, what) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: it names ${what}; run the tests with scripts/e2e.sh`);
  }
  if (name !== 'E2E_WEBDRIVER_URL' && !existsSync(value)) {
    throw new Error(`${name}=${value} does not exist: it names ${what}; run scripts/e2e.sh`);
  }
  return value;
}

const target = process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target');

/** Test programs of tests/bin built so far, by name. */
const testBins = {
  'catalog-server': process.env.MCP_SIEVE_CATALOG_SERVER || null,
  'team-db': process.env.MCP_SIEVE_TEAM_DB || null,
};

/**
 * Program `name` of tests/bin, built on first use (scripts/e2e.sh builds
 * only mcp-sieve and the app) and copied into the run's folder as e2e.sh
 * does with those, so a build of the shared target folder meanwhile cannot
 * swap it under the spec.
 */
function testBin(name) {
  if (!testBins[name]) {
    execFileSync('cargo', ['build', '--quiet', '-p', 'sieve-tests', '--bin', name], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    let built = path.join(target, 'debug', name);
    if (process.env.E2E_TMP) {
      const copy = path.join(process.env.E2E_TMP, `${name}-${process.pid}`);
      copyFileSync(built, copy);
      chmodSync(copy, 0o755);
      built = copy;
    }
    testBins[name] = built;
  }
  return testBins[name];
}

export const env = {
  /** The desktop app, built with the custom-protocol feature (serves ui/dist). */
  app: process.env.MCP_SIEVE_APP || path.join(target, 'debug', 'mcp-sieve-app'),
  /** The command line: the stdio proxy a host runs, and the demo server. */
  cli: process.env.MCP_SIEVE_CLI || path.join(target, 'debug', 'mcp-sieve'),
  get node22() {
    return required('MCP_SIEVE_NODE22', 'the Node 22 binary of tests/clients');
  },
  get serverEverything() {
    return required('MCP_SIEVE_SERVER_EVERYTHING', "server-everything's dist/index.js");
  },
  /** tests/bin/catalog-server (MCP_SIEVE_CATALOG_SERVER, else built on first use). */
  get catalogServer() {
    return testBin('catalog-server');
  },
  /** tests/bin/team-db, a team's PostgreSQL database (MCP_SIEVE_TEAM_DB, else built on first use). */
  get teamDb() {
    return testBin('team-db');
  },
  get webdriverUrl() {
    return required('E2E_WEBDRIVER_URL', "tauri-driver's address, e.g. http://127.0.0.1:4444");
  },
  /** Where homes and host config files are made; the run removes it. */
  tmp: process.env.E2E_TMP || undefined,
  /** Where the screenshots go. */
  screenshots: process.env.E2E_SCREENSHOTS || path.join(ROOT, 'docs', 'screenshots'),
};

for (const [name, file] of [
  ['MCP_SIEVE_APP', env.app],
  ['MCP_SIEVE_CLI', env.cli],
]) {
  if (!existsSync(file)) throw new Error(`${file} is missing (${name}); build it with scripts/e2e.sh`);
}
