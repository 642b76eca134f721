import {
  taskCancel,
  taskRetry,
  taskShow,
  tasksList,
  type Task,
  type TaskDetail,
  type TaskFilter,
  type TaskOrder,
  type TaskPage,
  type TaskStatus,
} from '../backend';
import type { ProfilesStore } from '../profiles/store.svelte';
import { Action, Loader } from '../request.svelte';
import { timeWindow, type TimeFilter } from '../timeWindow';

export const STATUSES: readonly TaskStatus[] = [
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
];

export const METHODS: readonly string[] = ['tools/call', 'prompts/get', 'resources/read'];

/** The filters as the screen holds them. */
export interface TaskFilters extends TimeFilter {
  status: TaskStatus[];
  servers: string[];
  methods: string[];
  orderBy: TaskOrder;
  ascending: boolean;
}

export const PAGE_SIZE = 50;
/** The most a live reload asks for at once (the ledger's page limit). */
const MAX_PAGE = 500;

/** The shell's TaskFilter for what the screen shows at time `now`. */
export function toTaskFilter(filters: TaskFilters, now: Date): TaskFilter {
  const filter: TaskFilter = {
    status: [...filters.status],
    servers: [...filters.servers],
    methods: [...filters.methods],
    orderBy: filters.orderBy,
    ascending: filters.ascending,
  };
  const span = timeWindow(filters.since, filters.from, filters.to, now);
  if (span.since !== undefined) filter.since = span.since;
  if (span.until !== undefined) filter.until = span.until;
  return filter;
}

/** Unfinished entries can be cancelled. */
export function canCancel(task: Task): boolean {
  return task.status === 'working' || task.status === 'input_required';
}

/** Entries that did not finish well can run again. */
export function canRetry(task: Task): boolean {
  return task.status === 'failed' || task.status === 'cancelled';
}

/** The task ledger: a filtered, sorted page, retry, cancel and one entry's detail. */
export class TasksStore {
  filters = $state<TaskFilters>({
    status: [],
    since: 'any',
    from: '',
    to: '',
    servers: [],
    methods: [],
    orderBy: 'lastUpdatedAt',
    ascending: false,
  });
  page = new Loader<TaskPage>({ tasks: [], nextCursor: null });
  /** Retry and cancel. */
  action = new Action();
  /** What the last retry did, as a sentence. */
  notice = $state<string | null>(null);
  selected = $state<string | null>(null);
  detail = new Loader<TaskDetail | null>(null);
  readonly #profiles: ProfilesStore;
  readonly #now: () => Date;

  constructor(profiles: ProfilesStore, now: () => Date = () => new Date()) {
    this.#profiles = profiles;
    this.#now = now;
  }

  #filter(): TaskFilter {
    return toTaskFilter(this.filters, this.#now());
  }

  /** The first page under the current filters. */
  load(): Promise<boolean> {
    const filter = { ...this.#filter(), limit: PAGE_SIZE };
    return this.page.load(() => tasksList(filter));
  }

  /**
   * The same rows again, after a change in the ledger: as many as are on
   * screen, so "More" does not have to be pressed again.
   */
  refresh(): Promise<boolean> {
    const shown = this.page.value.tasks.length;
    const limit = Math.min(MAX_PAGE, Math.max(PAGE_SIZE, shown));
    const filter = { ...this.#filter(), limit };
    const selected = this.selected;
    return Promise.all([
      this.page.load(() => tasksList(filter)),
      selected ? this.detail.load(() => taskShow(selected), selected) : true,
    ]).then(([listed]) => listed);
  }

  /** The next page, after the rows already shown. */
  more(): Promise<boolean> {
    const current = this.page.value;
    if (!current.nextCursor) return Promise.resolve(false);
    const filter = { ...this.#filter(), limit: PAGE_SIZE, cursor: current.nextCursor };
    return this.page.load(async () => {
      const next = await tasksList(filter);
      return { tasks: [...current.tasks, ...next.tasks], nextCursor: next.nextCursor };
    });
  }

  show(id: string): Promise<boolean> {
    this.selected = id;
    return this.detail.load(() => taskShow(id), id);
  }

  close(): void {
    this.selected = null;
    this.detail.value = null;
    this.detail.error = null;
  }

  /**
   * Runs the entry again, under the profile it ran under (or the one being
   * edited), as a new entry; `force` runs a completed one again.
   */
  async retry(task: Task, force = false): Promise<boolean> {
    const profile = task._meta['dev.mcp-sieve/profile'] ?? this.#profiles.editing;
    this.notice = null;
    const ok = await this.action.run(async () => {
      const retried = await taskRetry(task.taskId, force, profile);
      const id = retried.record.taskId;
      this.notice = retried.error
        ? `Ran ${task.taskId} again as ${id}; it failed: ${retried.error.message}`
        : `Ran ${task.taskId} again as ${id}.`;
    });
    if (ok) await this.refresh();
    return ok;
  }

  async cancel(task: Task): Promise<boolean> {
    this.notice = null;
    const ok = await this.action.run(() => taskCancel(task.taskId).then(() => {}));
    if (ok) await this.refresh();
    return ok;
  }
}
