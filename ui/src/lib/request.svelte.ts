// The two shapes every store's talk with the shell takes, each keeping its
// failure as a sentence for the page to show where the action was.

import { messageOf } from './backend';

/** Something a person does (an edit, a removal): busy while it runs, and its error. */
export class Action {
  busy = $state(false);
  error = $state<string | null>(null);

  /**
   * Runs `work`; true when it succeeded. `work` changes state only after
   * its last await, so a failure leaves everything as it was.
   */
  async run(work: () => Promise<void>): Promise<boolean> {
    this.busy = true;
    this.error = null;
    try {
      await work();
      return true;
    } catch (error) {
      this.error = messageOf(error);
      return false;
    } finally {
      this.busy = false;
    }
  }

  clear(): void {
    this.error = null;
  }
}

/** A value read from the shell; the newest load wins over slower older ones. */
export class Loader<T> {
  value: T;
  loading = $state(false);
  error = $state<string | null>(null);
  readonly #initial: T;
  /** What the value is of (a profile's name), when loads differ in that. */
  #key: string | null = null;
  #ticket = 0;

  constructor(initial: T) {
    this.#initial = initial;
    // Raw: values are replaced whole, never mutated, and 2,000 catalog rows
    // need no deep proxies.
    this.value = $state.raw(initial);
  }

  /**
   * Loads the value of `key`. On failure the error is kept, and the old
   * value stays when it is of the same key: a failed reload of a profile
   * keeps its rows, a failed load of another profile must not show the
   * first one's.
   */
  async load(fetch: () => Promise<T>, key = ''): Promise<boolean> {
    const ticket = ++this.#ticket;
    this.loading = true;
    try {
      const value = await fetch();
      if (ticket === this.#ticket) {
        this.value = value;
        this.#key = key;
        this.error = null;
      }
      return true;
    } catch (error) {
      if (ticket === this.#ticket) {
        this.error = messageOf(error);
        if (key !== this.#key) {
          this.value = this.#initial;
          this.#key = null;
        }
      }
      return false;
    } finally {
      if (ticket === this.#ticket) this.loading = false;
    }
  }
}
