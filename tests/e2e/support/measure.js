// Measurements the run prints (never asserts): the app's memory from /proc
// and a small table.

import { descendants, pssKib, rssKib } from './processes.js';
import { until } from './wait.js';

/** WebKit's helper processes, which are the window's as much as the app's. */
const WEBKIT = /^(WebKit|bwrap|xdg-dbus-proxy)/;

/**
 * The memory of the app's process tree now, in KiB: the app, its WebKit
 * helpers, and apart from them the upstream servers it started.
 */
export function memory(pid) {
  const children = descendants(pid);
  const webkit = children.filter((p) => WEBKIT.test(p.comm));
  const servers = children.filter((p) => !WEBKIT.test(p.comm));
  const sum = (list, of) => list.reduce((total, p) => total + of(p.pid), 0);
  return {
    appRss: rssKib(pid),
    appPss: pssKib(pid),
    webkitRss: sum(webkit, rssKib),
    webkitPss: sum(webkit, pssKib),
    webkit: webkit.map((p) => `${p.comm} ${Math.round(rssKib(p.pid) / 1024)} MiB`),
    serversRss: sum(servers, rssKib),
    servers: servers.length,
  };
}

/**
 * The memory once it has settled: sampled every half second until four
 * samples in a row are within 1% of each other (the window is idle). A
 * measurement never fails a run: when it does not settle within `timeout`
 * the last sample comes back with `settled: false`.
 */
export async function memoryAtRest(pid, timeout = 60_000) {
  const samples = [];
  try {
    const settled = await until(
      () => {
        samples.push(memory(pid));
        const last = samples.slice(-4);
        if (last.length < 4) return null;
        const totals = last.map((m) => m.appRss + m.webkitRss);
        const spread = Math.max(...totals) - Math.min(...totals);
        return spread <= Math.max(...totals) * 0.01 ? last[3] : null;
      },
      { timeout, interval: 500, what: "the app's memory to settle" },
    );
    return { ...settled, settled: true };
  } catch {
    return { ...samples.at(-1), settled: false };
  }
}

export const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;
export const ms = (value) => `${Math.round(value)} ms`;

/** Prints `rows` ([what, value, note]) as a Markdown table under `title`. */
export function printTable(title, rows) {
  const header = ['measurement', 'value', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? '').length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c ?? '').padEnd(widths[i])).join(' | ')} |`;
  console.log(
    ['', title, '', line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line), ''].join(
      '\n',
    ),
  );
}
