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

let catalogServer = process.env.MCP_SIEVE_CATALOG_SERVER || null;

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
  /**
   * tests/bin/catalog-server (MCP_SIEVE_CATALOG_SERVER, else built here on
   * first use: scripts/e2e.sh builds only mcp-sieve and the app), copied
   * into the run's folder as e2e.sh does with those, so a build of the
   * shared target folder meanwhile cannot swap it under the spec.
   */
  get catalogServer() {
    if (!catalogServer) {
      execFileSync('cargo', ['build', '--quiet', '-p', 'sieve-tests', '--bin', 'catalog-server'], {
        cwd: ROOT,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const built = path.join(target, 'debug', 'catalog-server');
      catalogServer = built;
      if (process.env.E2E_TMP) {
        catalogServer = path.join(process.env.E2E_TMP, `catalog-server-${process.pid}`);
        copyFileSync(built, catalogServer);
        chmodSync(catalogServer, 0o755);
      }
    }
    return catalogServer;
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
