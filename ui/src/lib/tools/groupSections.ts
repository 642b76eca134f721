// The Tools screen's group switches, each server with its own beneath it
// (DESIGN §3, §8): a server's own and derived groups are written
// `server/group`, its all-of-it switch is `server:NAME`, and the groups a
// person made with overlays are bare and may span servers.

export interface GroupEntry {
  /** The group as Sieve names it, and its switch's test id. */
  group: string;
  /** What the row shows under its server's heading. */
  label: string;
}

export interface GroupSection {
  /** The server, or `null` for the person's own groups. */
  server: string | null;
  entries: GroupEntry[];
}

const SERVER_GROUP = 'server:';

/**
 * `groups` in sections: the person's own groups first, then each server
 * in name order with its `server:NAME` switch first, then its groups by
 * name. The order within `groups` does not matter.
 */
export function groupSections(groups: readonly string[]): GroupSection[] {
  const own: GroupEntry[] = [];
  const servers = new Map<string, GroupEntry[]>();
  const of = (server: string) => {
    let entries = servers.get(server);
    if (!entries) {
      entries = [];
      servers.set(server, entries);
    }
    return entries;
  };
  for (const group of new Set(groups)) {
    const slash = group.indexOf('/');
    if (group.startsWith(SERVER_GROUP)) {
      of(group.slice(SERVER_GROUP.length)).push({ group, label: 'all of it' });
    } else if (slash > 0) {
      of(group.slice(0, slash)).push({ group, label: group.slice(slash + 1) });
    } else {
      own.push({ group, label: group });
    }
  }
  const order = (a: GroupEntry, b: GroupEntry) =>
    Number(!a.group.startsWith(SERVER_GROUP)) - Number(!b.group.startsWith(SERVER_GROUP)) ||
    a.label.localeCompare(b.label);
  const sections: GroupSection[] = [];
  if (own.length > 0) sections.push({ server: null, entries: own.sort(order) });
  for (const server of [...servers.keys()].sort((a, b) => a.localeCompare(b))) {
    sections.push({ server, entries: (servers.get(server) ?? []).sort(order) });
  }
  return sections;
}

/**
 * Whether `group` is switched off by `off` (a profile's `groups.none`):
 * named there, or, for a server's group `server/name`, named bare as
 * profiles written before groups belonged to servers name it (a bare name
 * means that group in every server).
 */
export function isSwitchedOff(group: string, off: readonly string[]): boolean {
  if (off.includes(group)) return true;
  const slash = group.indexOf('/');
  return slash > 0 && off.includes(group.slice(slash + 1));
}
