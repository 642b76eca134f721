import {
  catalogRows,
  type ConcernDefinition,
  type Kind,
  type LabelEdit,
  type PrimitiveRow,
  type ProfileEdit,
  type TagState,
  type TaskRetry,
  toolSetOverride,
  toolTry,
} from '../backend';
import type { LabelsStore } from '../labels/store.svelte';
import { groupsOff, tagState } from '../profiles/profile';
import { isSwitchedOff } from './groupSections';
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

type WithoutTools<E> = E extends { tools: string[] } ? Omit<E, 'tools'> : never;

/** A labelling edit of selected tools, before the selection is put in it. */
export type SelectionEdit = WithoutTools<LabelEdit>;

/**
 * Every tool, prompt and resource as the profile being edited sees it,
 * the filters of the list, the switches that edit the profile, and the
 * tools selected for labelling.
 */
export class ToolsStore {
  readonly #profiles: ProfilesStore;
  readonly #labels: LabelsStore;
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

  /** The tools selected for labelling, by exposed name; kept across searches. */
  selected = $state.raw<ReadonlySet<string>>(new Set());
  /** The row last clicked: a shift-click selects from it. */
  #anchor: string | null = null;

  /** Tools the filters show (every page): the ones a selection is made of. */
  shownTools = $derived(this.matching.filter((row) => row.kind === 'tool').map((row) => row.exposedName));
  /** The selected tools the servers still list, in list order. */
  selection = $derived(
    this.rows.value.filter((row) => this.selected.has(row.exposedName)).map((row) => row.exposedName),
  );
  /**
   * The groups the selected tools are in (derived ones too; not the
   * servers' own), each with how many of them it holds: what a selection
   * can be moved out of.
   */
  selectionGroups = $derived.by(() => {
    const counts = new Map<string, number>();
    for (const row of this.rows.value) {
      if (!this.selected.has(row.exposedName)) continue;
      for (const group of row.groups) {
        if (!group.startsWith('server:')) counts.set(group, (counts.get(group) ?? 0) + 1);
      }
    }
    return [...counts.keys()].sort(byName).map((group) => ({ group, tools: counts.get(group) ?? 0 }));
  });
  allShownSelected = $derived(
    this.shownTools.length > 0 && this.shownTools.every((name) => this.selected.has(name)),
  );
  someShownSelected = $derived(this.shownTools.some((name) => this.selected.has(name)));

  constructor(profiles: ProfilesStore, labels: LabelsStore) {
    this.#profiles = profiles;
    this.#labels = labels;
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
    return !isSwitchedOff(group, groupsOff(this.#profiles.profile.value));
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

  isSelected(exposedName: string): boolean {
    return this.selected.has(exposedName);
  }

  /**
   * Selects (or unselects) `exposedName`; with `range` (a shift-click),
   * every tool shown between it and the row clicked before.
   */
  select(exposedName: string, on: boolean, range = false): void {
    const shown = this.shownTools;
    const from = range && this.#anchor !== null ? shown.indexOf(this.#anchor) : -1;
    const to = shown.indexOf(exposedName);
    const names =
      from >= 0 && to >= 0 ? shown.slice(Math.min(from, to), Math.max(from, to) + 1) : [exposedName];
    this.#mark(names, on);
    this.#anchor = exposedName;
  }

  /** Selects (or unselects) every tool the filters show. */
  selectAllShown(on: boolean): void {
    this.#mark(this.shownTools, on);
  }

  clearSelection(): void {
    this.selected = new Set();
    this.#anchor = null;
  }

  #mark(names: string[], on: boolean): void {
    const next = new Set(this.selected);
    for (const name of names) {
      if (on) next.add(name);
      else next.delete(name);
    }
    this.selected = next;
  }

  /** The concerns a selection can be given a value of. */
  get concerns(): ConcernDefinition[] {
    return this.#profiles.concerns.value;
  }

  /**
   * Takes the selected tools out of group `from` and puts them in `to`
   * (one that exists or a new name), as one edit.
   */
  moveToGroup(from: string, to: string): Promise<boolean> {
    return this.label({ op: 'moveToGroup', from, to: to.trim() });
  }

  /**
   * Labels the selected tools (config.json, through the library); the
   * selection clears once it is written, and stays when it is refused.
   */
  label(edit: SelectionEdit): Promise<boolean> {
    const tools = this.selection;
    return this.edit.run(async () => {
      await this.#labels.apply({ ...edit, tools } as LabelEdit);
      this.clearSelection();
      await this.load();
    });
  }
}
