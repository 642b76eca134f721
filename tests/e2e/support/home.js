// A user's folder for one spec: config.json with the servers and concerns
// the scenario needs, the profiles the app writes, the ledger, and a
// desktop HOME/XDG_CONFIG_HOME of its own, so nothing the app does (say,
// writing Claude Desktop's config) can touch the real user's files.

import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { env } from './env.js';

/** The concern of the scenarios: the demo's tools carry a `security` value. */
export const SECURITY = {
  name: 'security',
  description: 'Security level required',
  values: ['high', 'medium', 'low'],
  default: 'medium',
};

/** The built-in demo, run as a real stdio server. */
export function demoServer() {
  return { command: env.cli, args: ['demo-server'] };
}

/** server-everything, the reference server, on Node 22. */
export function everythingServer() {
  return { command: env.node22, args: [env.serverEverything, 'stdio'] };
}

/**
 * GitHub's 117 tools (tests/fixtures/catalogs/github-mcp-server.json) from
 * a real stdio server: catalog-server serves the fixture catalogs in file
 * name order, GitHub's first. It sends no groups of its own, so the proxy
 * derives them.
 */
export function githubCatalogServer() {
  return { command: env.catalogServer, args: ['117'] };
}

/** `demo` and `everything`: the servers most scenarios run against. */
export function standardServers() {
  return { demo: demoServer(), everything: everythingServer() };
}

export class Home {
  /**
   * @param {object} options
   * @param {Record<string, object>} [options.servers] `mcpServers` of config.json
   * @param {object[]} [options.concerns]
   * @param {Record<string, object>} [options.profiles] files to put in profiles/ before the app starts
   */
  constructor({ servers = standardServers(), concerns = [SECURITY], profiles = {} } = {}) {
    const parent = env.tmp ?? os.tmpdir();
    mkdirSync(parent, { recursive: true });
    /** The temp folder of this spec; `dir` and the desktop folders are inside. */
    this.root = mkdtempSync(path.join(parent, 'home-'));
    /** What `--home` names. */
    this.dir = path.join(this.root, 'sieve');
    /** HOME and XDG_CONFIG_HOME of the app process. */
    this.desktopHome = path.join(this.root, 'desktop');
    this.xdgConfig = path.join(this.desktopHome, '.config');
    mkdirSync(path.join(this.dir, 'profiles'), { recursive: true });
    mkdirSync(this.xdgConfig, { recursive: true });
    this.writeJson(path.join(this.dir, 'config.json'), { mcpServers: servers, concerns });
    for (const [name, profile] of Object.entries(profiles)) {
      this.writeJson(this.profilePath(name), profile);
    }
  }

  writeJson(file, value) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  }

  /** A file for the scenario's own use (a host's config), beside the home. */
  file(...parts) {
    return path.join(this.root, ...parts);
  }

  get configPath() {
    return path.join(this.dir, 'config.json');
  }

  config() {
    return JSON.parse(readFileSync(this.configPath, 'utf8'));
  }

  /**
   * Replaces config.json as an editor that saves safely does: a temp file
   * beside it, renamed over it, so the app never reads half a file.
   */
  replaceConfig(config) {
    const temp = path.join(this.dir, '.config.json.e2e-tmp');
    this.writeJson(temp, config);
    renameSync(temp, this.configPath);
  }

  get approvalsPath() {
    return path.join(this.dir, 'approvals.json');
  }

  /** approvals.json as on disk, or null while no proxy has written it. */
  approvals() {
    return existsSync(this.approvalsPath) ? JSON.parse(readFileSync(this.approvalsPath, 'utf8')) : null;
  }

  profilePath(name = 'default') {
    return path.join(this.dir, 'profiles', `${name}.json`);
  }

  /** The profile as on disk, or null while it does not exist. */
  profile(name = 'default') {
    const file = this.profilePath(name);
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
  }

  /** The profile's exact bytes, for "nothing was written" checks. */
  profileBytes(name = 'default') {
    return readFileSync(this.profilePath(name));
  }

  /** Claude Desktop's config under the app's XDG_CONFIG_HOME (api::hosts::default_path). */
  get claudeDesktopConfig() {
    return path.join(this.xdgConfig, 'Claude', 'claude_desktop_config.json');
  }

  remove() {
    if (process.env.E2E_KEEP) return;
    rmSync(this.root, { recursive: true, force: true });
  }
}
