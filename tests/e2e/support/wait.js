// Waiting for things to become true. The app is slow to start on two cores
// under Xvfb, so every wait is for a condition, with a generous limit and a
// message saying what did not happen; nothing sleeps a fixed time.

import { setTimeout as delay } from 'node:timers/promises';

/** How long the first element of a fresh window may take. */
export const LAUNCH_TIMEOUT = 60_000;
/** How long anything else may take: a file written, a list reloaded. */
export const TIMEOUT = 30_000;

/**
 * Polls `probe` until it returns something truthy and returns that. A probe
 * that throws counts as not yet; the last value or error is in the failure.
 */
export async function until(probe, { timeout = TIMEOUT, interval = 100, what = 'the condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      const seen = last instanceof Error ? `last error: ${last.message}` : `last value: ${JSON.stringify(last)}`;
      throw new Error(`waited ${timeout} ms for ${what}; ${seen}`);
    }
    await delay(interval);
  }
}

/** Rejects with `what` when `promise` takes longer than `timeout`. */
export async function within(promise, { timeout = TIMEOUT, what = 'an answer' } = {}) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${timeout} ms for ${what}`)), timeout);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
