// A team gateway for the app's specs (DESIGN §12): a PostgreSQL database of
// the spec's own (tests/bin/team-db), `mcp-sieve serve --http` replicas on
// it, each with a home of its own, and 2026-07-28 requests to them as a
// host sends them.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { env } from './env.js';
import { alive, descendants, signal } from './processes.js';
import { TIMEOUT, within } from './wait.js';

/** The first line of `stream` that `match` accepts, or a failure naming `what`. */
function firstLine(stream, match, what) {
  return within(
    new Promise((resolve) => {
      createInterface({ input: stream }).on('line', (line) => {
        const found = match(line);
        if (found) resolve(found);
      });
    }),
    { timeout: TIMEOUT, what },
  );
}

/** Ends `child` and everything it started. */
function end(child) {
  if (!child || child.exitCode !== null) return;
  const tree = [child.pid, ...descendants(child.pid).map((p) => p.pid)];
  signal(tree.filter(alive), 'SIGKILL');
}

export class Team {
  /**
   * A database whose config.json is `config`, and its static token.
   *
   * @param {object} config
   */
  static async start(config) {
    const dir = mkdtempSync(path.join(env.tmp ?? os.tmpdir(), 'team-'));
    const file = path.join(dir, 'config.json');
    writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
    const db = spawn(env.teamDb, [file], { stdio: ['pipe', 'pipe', 'inherit'] });
    const team = new Team(dir, db);
    try {
      team.url = await firstLine(db.stdout, (line) => line.startsWith('postgres') && line.trim(), 'the team database');
      team.token = team.cli(['serve', '--print-token']).trim();
    } catch (error) {
      team.stop();
      throw error;
    }
    return team;
  }

  constructor(dir, db) {
    this.dir = dir;
    this.db = db;
    /** `postgres://...` of the team's database. */
    this.url = null;
    /** The static bearer token every replica takes. */
    this.token = null;
    this.replicas = [];
  }

  /** `mcp-sieve --state URL ARGS` from a home of its own: its standard output. */
  cli(args) {
    const home = mkdtempSync(path.join(this.dir, 'cli-'));
    return execFileSync(env.cli, ['--home', home, '--state', this.url, ...args], { encoding: 'utf8' });
  }

  /** Starts a replica, `mcp-sieve serve --http` on the database; its `/mcp` URL. */
  async replica() {
    const home = mkdtempSync(path.join(this.dir, 'replica-'));
    const child = spawn(env.cli, ['--home', home, 'serve', '--http', '127.0.0.1:0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, MCP_SIEVE_STATE: this.url, MCP_SIEVE_LOG: 'warn,rmcp=error' },
    });
    this.replicas.push(child);
    const base = await firstLine(
      child.stderr,
      (line) => line.match(/^MCP Sieve is serving (http:\/\/[^/]+)\//)?.[1],
      'a replica to say where it serves',
    );
    // Drained, so the replica never blocks on a full pipe.
    child.stderr.resume();
    return `${base}/mcp`;
  }

  /** One 2026-07-28 request to a replica's `endpoint`: the JSON-RPC response. */
  async request(endpoint, method, params) {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'mcp-sieve-e2e', version: '1' },
        },
      },
    };
    const headers = {
      authorization: `Bearer ${this.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
    };
    if (typeof params.name === 'string') headers['mcp-name'] = params.name;
    const response = await within(fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body) }), {
      what: `${method} from a replica`,
    });
    const text = await response.text();
    // A plain answer, or the last event of a stream.
    const last = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length))
      .pop();
    return JSON.parse(last ?? text);
  }

  /** Ends the replicas and the database, and removes the team's folder. */
  stop() {
    for (const child of this.replicas) end(child);
    this.db.stdin.end();
    end(this.db);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
