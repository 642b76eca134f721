import {
  concernDefinitions,
  profileCreate,
  profileDelete,
  profileEdit,
  profileMakeActive,
  profileRename,
  profileShow,
  profilesList,
  type ConcernDefinition,
  type ProfileEdit,
  type ProfileSummary,
  type ProfileView,
} from '../backend';
import { Action, Loader } from '../request.svelte';

export const DEFAULT_PROFILE = 'default';

/**
 * The profiles, and the one being edited: the profile the Tools screen,
 * the token meter and the host snippets show, and every edit goes to.
 */
export class ProfilesStore {
  /** The name of the profile being edited. */
  editing = $state(DEFAULT_PROFILE);
  list = new Loader<ProfileSummary[]>([]);
  /**
   * The profile being edited as the library shows it (its document, and
   * what its fields mean), as last read or written.
   */
  profile = new Loader<ProfileView | null>(null);
  concerns = new Loader<ConcernDefinition[]>([]);
  /** Create, clone, rename, delete. */
  manage = new Action();
  /** Edits made on the Profiles screen. */
  edit = new Action();
  #followers: (() => Promise<unknown>)[] = [];

  /**
   * Runs `reload` whenever what the profile being edited shows may have
   * changed: another profile chosen, or an edit written.
   */
  follow(reload: () => Promise<unknown>): void {
    this.#followers.push(reload);
  }

  async #changed(): Promise<void> {
    await Promise.all(this.#followers.map((reload) => reload()));
  }

  async load(): Promise<void> {
    await Promise.all([this.loadList(), this.loadConcerns(), this.loadProfile()]);
  }

  loadList(): Promise<boolean> {
    return this.list.load(profilesList);
  }

  loadConcerns(): Promise<boolean> {
    return this.concerns.load(concernDefinitions);
  }

  loadProfile(): Promise<boolean> {
    const name = this.editing;
    return this.profile.load(() => profileShow(name), name);
  }

  /** Makes `name` the profile being edited. */
  async select(name: string): Promise<void> {
    if (name === this.editing) return;
    this.editing = name;
    this.edit.clear();
    await Promise.all([this.loadProfile(), this.#changed()]);
  }

  /** The profile being edited was changed on disk (by another program, or a proxy). */
  async reloadEditing(): Promise<void> {
    await Promise.all([this.loadProfile(), this.#changed()]);
  }

  /**
   * Writes `edit` into the profile being edited, then reloads what shows
   * it. Rejects with the shell's error, having changed nothing.
   */
  async apply(edit: ProfileEdit): Promise<void> {
    this.profile.value = await profileEdit(this.editing, edit);
    await this.#changed();
  }

  /** An edit from the Profiles screen, its error kept on `edit`. */
  change(edit: ProfileEdit): Promise<boolean> {
    return this.edit.run(() => this.apply(edit));
  }

  /** Creates `name`, empty or as a copy of `from`. */
  create(name: string, from?: string): Promise<boolean> {
    return this.manage.run(async () => {
      this.list.value = await profileCreate(name.trim(), from);
    });
  }

  rename(from: string, to: string): Promise<boolean> {
    return this.manage.run(async () => {
      this.list.value = await profileRename(from, to.trim());
      // The profile being edited keeps being edited under its new name.
      if (this.editing === from) await this.select(to.trim());
    });
  }

  /** The profile hosts that name none get, as the list last said. */
  get active(): string | undefined {
    return this.list.value.find((summary) => summary.active)?.name;
  }

  /** Makes `name` the profile of `/mcp` and of `serve` without `--profile`. */
  makeActive(name: string): Promise<boolean> {
    return this.manage.run(async () => {
      this.list.value = await profileMakeActive(name);
    });
  }

  remove(name: string): Promise<boolean> {
    return this.manage.run(async () => {
      this.list.value = await profileDelete(name);
      if (this.editing === name) await this.select(DEFAULT_PROFILE);
    });
  }
}
