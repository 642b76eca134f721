import {
  catalogRows,
  type Kind,
  type PrimitiveRow,
  type ProfileEdit,
  type TagState,
  type TaskRetry,
  toolSetOverride,
  toolTry,
} from '../backend';
import { groupsOff, tagState } from '../profiles/profile';
import type { ProfilesStore } from '../profiles/store.svelte';
import { Action, Loader } from '../request.svelte';
import { isOwnEntry, switchEdit } from './rules';

export type KindFilter = Kind | 'all';
export type VisibilityFilter = 'all' | 'visible' | 'hidden';

/** Rows per page: 2,000 rows in one list would make every keystroke slow. */
export const PAGE_SIZE = 100;

function byName(a: string, b: string): number {
  return a.localeCompare(b);
}

/** Server groups (`server:github`) after the named ones. */
function groupOrder(a: string, b: string): number {
  return Number(a.startsWith('server:')) - Number(b.startsWith('server:')) || byName(a, b);
}

/**
 * Every tool, prompt and resource as the profile being edited sees it,
 * the filters of the list, and the switches that edit the profile.
 */
export class ToolsStore {
  readonly #profiles: ProfilesStore;
  rows = new Loader<PrimitiveRow[]>([]);
  /** Switches and fixes; their failure shows above the list. */
  edit = new Action();
  search = $state('');
  kind = $state<KindFilter>('all');
  show = $state<VisibilityFilter>('all');
  page = $state(0);
  /** The hidden row whose switch was pressed: it offers the rules that hide it. */
  offering = $state<string | null>(null);

  // Lower-cased once per load, not once per keystroke and row.
  #searchable = $derived(
    this.rows.value.map((row) => ({
      row,
      text: [row.exposedName, row.title ?? '', row.description ?? ''].join('\n').toLowerCase(),
    })),
  );

  matching = $derived.by(() => {
    const words = this.search.toLowerCase().split(/\s+/).filter(Boolean);
    return this.#searchable
      .filter(
        ({ row, text }) =>
          (this.kind === 'all' || row.kind === this.kind) &&
          (this.show === 'all' || row.visible === (this.show === 'visible')) &&
          words.every((word) => text.includes(word)),
      )
      .map(({ row }) => row);
  });

  pageCount = $derived(Math.max(1, Math.ceil(this.matching.length / PAGE_SIZE)));
  /** The page shown, kept in range when a reload or a filter shortens the list. */
  currentPage = $derived(Math.min(this.page, this.pageCount - 1));
  pageRows = $derived(
    this.matching.slice(this.currentPage * PAGE_SIZE, (this.currentPage + 1) * PAGE_SIZE),
  );

  // The profile's own are listed too: a group switched off or a tag
  // required that no row has any more must still be switchable back.
  groups = $derived.by(() =>
    [
      ...new Set([
        ...this.rows.value.flatMap((row) => row.groups),
        ...groupsOff(this.#profiles.profile.value),
      ]),
    ].sort(groupOrder),
  );
  /** Groups the proxy derived from the tools' subjects (DESIGN §3). */
  derivedGroups = $derived(new Set(this.rows.value.flatMap((row) => row.derivedGroups ?? [])));
  tags = $derived.by(() =>
    [
      ...new Set([
        ...this.rows.value.flatMap((row) => row.tags),
        ...Object.keys(this.#profiles.profile.value?.tags ?? {}),
      ]),
    ].sort(byName),
  );

  constructor(profiles: ProfilesStore) {
    this.#profiles = profiles;
  }

  load(): Promise<boolean> {
    const profile = this.#profiles.editing;
    return this.rows.load(() => catalogRows(profile), profile);
  }

  /** Changes a filter; the list starts again at its first page. */
  filter(change: { search?: string; kind?: KindFilter; show?: VisibilityFilter }): void {
    if (change.search !== undefined) this.search = change.search;
    if (change.kind !== undefined) this.kind = change.kind;
    if (change.show !== undefined) this.show = change.show;
    this.page = 0;
  }

  isGroupOn(group: string): boolean {
    return !groupsOff(this.#profiles.profile.value).includes(group);
  }

  /** Whether `group` is one the proxy derived. */
  isDerived(group: string): boolean {
    return this.derivedGroups.has(group);
  }

  tagState(tag: string): TagState {
    return tagState(this.#profiles.profile.value, tag);
  }

  setGroup(group: string, on: boolean): Promise<boolean> {
    return this.apply({ op: 'setGroup', group, on });
  }

  setTag(tag: string, state: TagState): Promise<boolean> {
    return this.apply({ op: 'setTag', tag, state });
  }

  /** The profile's tag expression (`tags.expr`), or '' when it has none. */
  get tagExpr(): string {
    return this.#profiles.profile.value?.document.tags?.expr ?? '';
  }

  /**
   * Writes the tag expression; blank clears it. The library refuses one
   * that does not read, saying at which column, and nothing changes.
   */
  setTagExpr(expr: string): Promise<boolean> {
    const trimmed = expr.trim();
    return this.apply({ op: 'setTagExpr', expr: trimmed === '' ? null : trimmed });
  }

  /**
   * The row's switch. A visible row is switched off (its own deny entry);
   * a hidden one loses its own entry if it has one, and when other rules
   * still hide it the row offers to change those instead of staying
   * silently hidden.
   */
  async toggle(row: PrimitiveRow): Promise<void> {
    const name = row.exposedName;
    if (row.visible) {
      this.offering = null;
      await this.apply(switchEdit(row, false));
      return;
    }
    if (!row.reasons.some(isOwnEntry)) {
      this.offering = name;
      return;
    }
    if (await this.apply(switchEdit(row, true))) {
      const now = this.rows.value.find((r) => r.exposedName === name);
      this.offering = now && !now.visible ? name : null;
    }
  }

  /**
   * Sets the title and description hosts see for `exposedName` (an
   * overlay in config.json, for every profile); blank gives the upstream's
   * back. The rows follow when the engine reloads config.json.
   */
  setOverride(exposedName: string, title: string, description: string): Promise<boolean> {
    const text = (value: string) => (value.trim() === '' ? null : value.trim());
    return this.edit.run(async () => {
      await toolSetOverride(exposedName, text(title), text(description));
      await this.load();
    });
  }

  /** The profile being edited: the one a "Try" calls under. */
  get profileName(): string {
    return this.#profiles.editing;
  }

  /** The last "Try" of a tool's row, while its panel is open. */
  trying = new Action();
  tried = $state<{ name: string; outcome: TaskRetry } | null>(null);

  /**
   * Calls `name` with `args` under the profile being edited (refused,
   * with why, when the profile hides it); the call is in the ledger.
   */
  async tryTool(name: string, args: Record<string, unknown>): Promise<boolean> {
    this.tried = null;
    return this.trying.run(async () => {
      const outcome = await toolTry(this.#profiles.editing, name, args);
      this.tried = { name, outcome };
    });
  }

  /** Writes `edit` (a switch, or a fix a hidden row offers) into the profile being edited. */
  async apply(edit: ProfileEdit): Promise<boolean> {
    return this.edit.run(() => this.#profiles.apply(edit));
  }
}
