// A host as Claude Desktop is one: `mcp-sieve --home DIR serve --profile
// NAME` as a child process, spoken to in raw JSON-RPC lines over its
// stdin and stdout (as tests/common/wire.rs does). Notifications that come
// while waiting for a response are kept for `notification()`.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { env } from './env.js';
import { alive, descendants, signal } from './processes.js';
import { TIMEOUT, until, within } from './wait.js';

export class StdioHost {
  /**
   * Starts the proxy and does the 2025-11-25 handshake.
   *
   * @param {import('./home.js').Home} home
   * @param {string} [profile]
   */
  static async start(home, profile = 'default') {
    return StdioHost.spawn(env.cli, ['--home', home.dir, 'serve', '--profile', profile]);
  }

  /** Starts `command args...` as a host would from its config file, and does the handshake. */
  static async spawn(command, args) {
    const child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, MCP_SIEVE_LOG: 'warn,rmcp=error' },
    });
    const host = new StdioHost(child);
    const init = await host.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'mcp-sieve-e2e', version: '1' },
    });
    if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
    host.notify('notifications/initialized', {});
    return host;
  }

  constructor(child) {
    this.child = child;
    this.nextId = 0;
    /** Responses by id, notifications in order of arrival. */
    this.responses = new Map();
    this.notifications = [];
    this.stderr = '';
    this.waiters = new Set();
    /** Set when the program could not be started at all. */
    this.spawnError = null;
    child.on('error', (error) => {
      this.spawnError = error;
    });
    child.stderr.on('data', (chunk) => {
      // The last few lines say why it stopped, if it does.
      this.stderr = (this.stderr + chunk).slice(-4000);
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (message.id !== undefined && message.method === undefined) {
        this.responses.set(message.id, message);
      } else if (message.method !== undefined && message.id === undefined) {
        this.notifications.push(message);
      }
      for (const wake of this.waiters) wake();
    });
  }

  #send(message) {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }

  notify(method, params) {
    this.#send({ method, params });
  }

  /** Resolves on the next message, or after `ms`. */
  #nextMessage(ms) {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
  }

  /** Sends a request and returns the whole response (`result` or `error`). */
  async request(method, params, timeout = TIMEOUT) {
    this.nextId += 1;
    const id = this.nextId;
    this.#send({ id, method, params });
    const deadline = Date.now() + timeout;
    while (!this.responses.has(id)) {
      if (this.spawnError) throw new Error(`the host's server did not start: ${this.spawnError.message}`);
      if (this.child.exitCode !== null) {
        throw new Error(`mcp-sieve serve exited (${this.child.exitCode}) before answering ${method}: ${this.stderr}`);
      }
      if (Date.now() >= deadline) throw new Error(`no answer to ${method} within ${timeout} ms: ${this.stderr}`);
      await this.#nextMessage(Math.max(1, Math.min(500, deadline - Date.now())));
    }
    const response = this.responses.get(id);
    this.responses.delete(id);
    return response;
  }

  /** The result of `method`, or an error naming the JSON-RPC error. */
  async result(method, params) {
    const response = await this.request(method, params);
    if (response.error) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
    return response.result;
  }

  async tools() {
    return (await this.result('tools/list', {})).tools;
  }

  /**
   * Takes the first notification named `method` that arrived (or arrives)
   * at or after index `from` of the notifications; returns its index.
   */
  async notification(method, { from = 0, timeout = TIMEOUT } = {}) {
    return until(
      () => {
        const index = this.notifications.findIndex((n, i) => i >= from && n.method === method);
        return index >= 0 ? { index } : null;
      },
      { timeout, what: `${method} from mcp-sieve serve` },
    ).then(({ index }) => index);
  }

  /** Closes stdin (how a host ends a stdio server) and waits for the exit. */
  async stop() {
    const tree = [this.child.pid, ...descendants(this.child.pid).map((p) => p.pid)];
    this.child.stdin.end();
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      try {
        await within(exited, { timeout: 10_000, what: 'mcp-sieve serve to exit after stdin closed' });
      } catch {
        this.child.kill('SIGKILL');
      }
    }
    // Its upstream servers live in their own process groups.
    signal(tree.filter(alive), 'SIGKILL');
  }
}
