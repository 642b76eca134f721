// Processes from /proc: the app's tree (its WebKit helpers and the
// upstream servers it starts), their memory, and ending them by id.

import { readdirSync, readFileSync } from 'node:fs';

/** `{pid, ppid, comm}` of a live process, or null. */
export function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may hold spaces or parentheses itself.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    const state = fields[0];
    if (state === 'Z' || state === 'X') return null;
    return { pid, ppid: Number(fields[1]), comm };
  } catch {
    return null;
  }
}

export function alive(pid) {
  return stat(pid) !== null;
}

function allProcesses() {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => stat(Number(name)))
    .filter(Boolean);
}

/** Every live process below `pid`, children first in the order found. */
export function descendants(pid) {
  const all = allProcesses();
  const found = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const children = all.filter((p) => frontier.includes(p.ppid));
    found.push(...children);
    frontier = children.map((p) => p.pid);
  }
  return found;
}

/** `VmRSS` of `pid` in KiB, 0 once it is gone. */
export function rssKib(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** `Pss` of `pid` in KiB (shared pages split between their users), 0 once gone. */
export function pssKib(pid) {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Sends `signal` to each pid that is still there. */
export function signal(pids, sig) {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // Gone already.
    }
  }
}
