import { messageOf, patternCheck, type PatternListName, type Section } from '../backend';
import type { ProfilesStore } from './store.svelte';

/**
 * The field where a person types a glob for one allow or deny list. Each
 * keystroke is checked by the shell, so the reason a glob is bad shows at
 * once; a bad glob is never sent to the profile.
 */
export class PatternDraft {
  text = $state('');
  error = $state<string | null>(null);
  busy = $state(false);
  /** The text the last finished check was about. */
  #checked = $state<string | null>(null);

  /** True when the text is checked and good: the Add button's state. */
  ready = $derived(
    this.text.trim() !== '' && this.#checked === this.text.trim() && this.error === null,
  );

  readonly #profiles: ProfilesStore;
  readonly section: Section;
  readonly list: PatternListName;

  constructor(profiles: ProfilesStore, section: Section, list: PatternListName) {
    this.#profiles = profiles;
    this.section = section;
    this.list = list;
  }

  /** Takes what was typed and checks it. */
  async input(text: string): Promise<void> {
    this.text = text;
    await this.#check();
  }

  async #check(): Promise<void> {
    const pattern = this.text.trim();
    if (pattern === '') {
      this.error = null;
      this.#checked = null;
      return;
    }
    let error: string | null = null;
    try {
      await patternCheck(pattern);
    } catch (failure) {
      error = messageOf(failure);
    }
    // A slower check of older text must not overwrite the newer one's.
    if (pattern !== this.text.trim()) return;
    this.error = error;
    this.#checked = pattern;
  }

  /** Adds the pattern to the profile being edited; nothing happens while it is bad. */
  async add(): Promise<boolean> {
    if (!this.ready) await this.#check();
    if (!this.ready) return false;
    const pattern = this.text.trim();
    this.busy = true;
    try {
      await this.#profiles.apply({ op: 'addPattern', section: this.section, list: this.list, pattern });
      this.text = '';
      this.#checked = null;
      return true;
    } catch (failure) {
      this.error = messageOf(failure);
      return false;
    } finally {
      this.busy = false;
    }
  }
}
