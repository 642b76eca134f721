// The rules of `hiddenBy` (sieve-core's explanations, e.g. `groups.none
// billing`), read back so a hidden row can offer the edit that shows it.

import type { Kind, PrimitiveRow, ProfileEdit, Section } from '../backend';

/** The profile section whose allow/deny globs apply to `kind`. */
export function sectionOf(kind: Kind): Section {
  switch (kind) {
    case 'tool':
      return 'tools';
    case 'prompt':
      return 'prompts';
    case 'resource':
    case 'resourceTemplate':
      return 'resources';
  }
}

type Rule =
  | { rule: 'deny'; section: Section; pattern: string }
  | { rule: 'allow'; section: Section }
  | { rule: 'groupOff'; group: string }
  | { rule: 'tagExcluded'; tag: string }
  | { rule: 'tagRequired'; tag: string }
  | { rule: 'concern'; concern: string }
  // servers, groups.any and uriPrefixes: no edit of the app changes them.
  | { rule: 'other' };

export function parseRule(reason: string): Rule {
  let m = /^(tools|resources|prompts)\.deny (".*")$/.exec(reason);
  if (m) {
    try {
      return { rule: 'deny', section: m[1] as Section, pattern: JSON.parse(m[2]) as string };
    } catch {
      // A quoting JSON does not share with Rust (`\u{..}`); nothing to offer.
      return { rule: 'other' };
    }
  }
  m = /^(tools|resources|prompts)\.allow: /.exec(reason);
  if (m) return { rule: 'allow', section: m[1] as Section };
  m = /^groups\.none (.+)$/.exec(reason);
  if (m) return { rule: 'groupOff', group: m[1] };
  m = /^tags\.none (.+)$/.exec(reason);
  if (m) return { rule: 'tagExcluded', tag: m[1] };
  m = /^tags\.all (.+) \(missing\)$/.exec(reason);
  if (m) return { rule: 'tagRequired', tag: m[1] };
  m = /^concern ([^=]+)=/.exec(reason);
  if (m) return { rule: 'concern', concern: m[1] };
  return { rule: 'other' };
}

/** Whether `reason` is the row's own deny entry, the one its switch writes. */
export function isOwnEntry(reason: string, row: PrimitiveRow): boolean {
  const rule = parseRule(reason);
  return rule.rule === 'deny' && rule.section === sectionOf(row.kind) && rule.pattern === row.exposedName;
}

/**
 * What the row's switch writes: a tool's exposed name in or out of
 * `tools.deny` (setTool); for prompts and resources the same entry in their
 * own section's deny list.
 */
export function switchEdit(row: PrimitiveRow, on: boolean): ProfileEdit {
  if (row.kind === 'tool') return { op: 'setTool', exposedName: row.exposedName, on };
  const section = sectionOf(row.kind);
  const pattern = row.exposedName;
  return on
    ? { op: 'removePattern', section, list: 'deny', pattern }
    : { op: 'addPattern', section, list: 'deny', pattern };
}

export interface Fix {
  label: string;
  edit: ProfileEdit;
}

/** The edit that lifts rule `reason` for `row`, or null when the app has none. */
export function fixFor(reason: string, row: PrimitiveRow): Fix | null {
  const rule = parseRule(reason);
  switch (rule.rule) {
    case 'deny':
      if (isOwnEntry(reason, row)) return { label: 'Switch it on', edit: switchEdit(row, true) };
      return {
        label: `Take "${rule.pattern}" out of ${rule.section}.deny`,
        edit: { op: 'removePattern', section: rule.section, list: 'deny', pattern: rule.pattern },
      };
    case 'allow':
      return {
        label: `Add it to ${rule.section}.allow`,
        edit: { op: 'addPattern', section: rule.section, list: 'allow', pattern: row.exposedName },
      };
    case 'groupOff':
      return { label: `Switch group ${rule.group} on`, edit: { op: 'setGroup', group: rule.group, on: true } };
    case 'tagExcluded':
      return { label: `Stop excluding tag ${rule.tag}`, edit: { op: 'setTag', tag: rule.tag, state: 'ignore' } };
    case 'tagRequired':
      return { label: `Stop requiring tag ${rule.tag}`, edit: { op: 'setTag', tag: rule.tag, state: 'ignore' } };
    case 'concern':
      return {
        label: `Set ${rule.concern} to any`,
        edit: { op: 'setConcern', concern: rule.concern, value: null },
      };
    case 'other':
      return null;
  }
}

/** The sentence a hidden row shows. */
export function hiddenText(row: PrimitiveRow): string {
  return `hidden by ${row.hiddenBy.join('; ')}`;
}
