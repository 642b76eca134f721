import { tokenReport, type TokenReport } from '../backend';
import { Loader } from '../request.svelte';
import type { ProfilesStore } from '../profiles/store.svelte';

/** What the host would see under the profile being edited: tools and tokens. */
export class MeterStore {
  report = new Loader<TokenReport | null>(null);
  readonly #profiles: ProfilesStore;

  constructor(profiles: ProfilesStore) {
    this.#profiles = profiles;
  }

  load(): Promise<boolean> {
    const profile = this.#profiles.editing;
    return this.report.load(() => tokenReport(profile), profile);
  }
}
