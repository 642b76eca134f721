/**
 * What a server row says of the next attempt to connect to a server that
 * is down: the proxy keeps it down, with its error, while it tries again.
 */

import type { ServerRow } from '../backend';

/** "next try in 12 s", "next try at 14:05:09", "trying again now", or
 * nothing when the server is not down or no attempt is planned. */
export function retryText(row: Pick<ServerRow, 'state' | 'retryAt'>, now: number): string | null {
  if (row.state !== 'down' || row.retryAt === undefined) return null;
  const wait = row.retryAt - now;
  if (wait <= 0) return 'trying again now';
  if (wait < 60_000) return `next try in ${Math.ceil(wait / 1000)} s`;
  return `next try at ${new Date(row.retryAt).toLocaleTimeString()}`;
}
