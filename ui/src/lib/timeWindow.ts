/**
 * The time window a list screen (Tasks, Audit) filters by, as a person
 * picks it, and as the shell takes it: ISO timestamps or an age (`1h`).
 */

export type Since = 'any' | '1h' | 'today' | 'yesterday' | 'custom';

/** The time filter as a screen holds it. */
export interface TimeFilter {
  since: Since;
  /** `custom`: `datetime-local` values, local time. */
  from: string;
  to: string;
}

/** `since` and `until` as the shell's filters take them. */
export interface Window {
  since?: string;
  until?: string;
}

function localMidnight(now: Date, daysBack: number): string {
  // The Date constructor does the calendar: DST days, month starts.
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - daysBack).toISOString();
}

function fromLocal(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * The window `since` names at time `now`; `from` and `to` are the
 * `datetime-local` values (local time) of a `custom` one.
 */
export function timeWindow(since: Since, from: string, to: string, now: Date): Window {
  switch (since) {
    case 'any':
      return {};
    case '1h':
      return { since: '1h' };
    case 'today':
      return { since: localMidnight(now, 0) };
    case 'yesterday':
      return { since: localMidnight(now, 1), until: localMidnight(now, 0) };
    case 'custom':
      return { since: fromLocal(from), until: fromLocal(to) };
  }
}
