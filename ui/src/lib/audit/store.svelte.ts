import { auditList, type AuditFilter, type AuditPage, type AuditStatus } from '../backend';
import { Loader } from '../request.svelte';
import { timeWindow, type TimeFilter } from '../timeWindow';

export const STATUSES: readonly AuditStatus[] = ['ok', 'error', 'refused', 'cancelled'];

/** The filters as the screen holds them. */
export interface AuditFilters extends TimeFilter {
  status: AuditStatus[];
  servers: string[];
}

export const PAGE_SIZE = 50;
/** The most a live reload asks for at once (the audit's page limit). */
const MAX_PAGE = 1000;

/** How the audit is turned on, as config.json has it (DESIGN §12). */
export const TURN_ON = '"settings": {"audit": true}';
export const TURN_ON_ARGUMENTS = '"settings": {"audit": {"arguments": true}}';

/** The shell's AuditFilter for what the screen shows at time `now`. */
export function toAuditFilter(filters: AuditFilters, now: Date): AuditFilter {
  const filter: AuditFilter = { status: [...filters.status], servers: [...filters.servers] };
  const span = timeWindow(filters.since, filters.from, filters.to, now);
  if (span.since !== undefined) filter.since = span.since;
  if (span.until !== undefined) filter.until = span.until;
  return filter;
}

/** True when no filter narrows the list: an empty page means nothing was recorded. */
export function unfiltered(filters: AuditFilters): boolean {
  return filters.status.length === 0 && filters.servers.length === 0 && filters.since === 'any';
}

/** The audit: the calls hosts made through the proxies, newest first, a page at a time. */
export class AuditStore {
  filters = $state<AuditFilters>({ status: [], since: 'any', from: '', to: '', servers: [] });
  page = new Loader<AuditPage>({ calls: [], nextCursor: null });
  readonly #now: () => Date;

  constructor(now: () => Date = () => new Date()) {
    this.#now = now;
  }

  #filter(): AuditFilter {
    return toAuditFilter(this.filters, this.#now());
  }

  /** The first page under the current filters. */
  load(): Promise<boolean> {
    const filter = { ...this.#filter(), limit: PAGE_SIZE };
    return this.page.load(() => auditList(filter));
  }

  /**
   * The same rows again, after a change in the ledger's database: as many
   * as are on screen, so "More" does not have to be pressed again.
   */
  refresh(): Promise<boolean> {
    const shown = this.page.value.calls.length;
    const limit = Math.min(MAX_PAGE, Math.max(PAGE_SIZE, shown));
    const filter = { ...this.#filter(), limit };
    return this.page.load(() => auditList(filter));
  }

  /** The next page, after the rows already shown. */
  more(): Promise<boolean> {
    const current = this.page.value;
    if (!current.nextCursor) return Promise.resolve(false);
    const filter = { ...this.#filter(), limit: PAGE_SIZE, cursor: current.nextCursor };
    return this.page.load(async () => {
      const next = await auditList(filter);
      return { calls: [...current.calls, ...next.calls], nextCursor: next.nextCursor };
    });
  }
}
