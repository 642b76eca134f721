// What a hidden row's switch offers: the library sends each rule that hides
// a row with the profile edit that lifts it (`reasons`); here those edits
// get their labels, and the row's own entry is told from the others.

import type { HiddenReason, Kind, PrimitiveRow, ProfileEdit, Section } from '../backend';

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

/** Whether two edits are the same change. */
function sameEdit(a: ProfileEdit, b: ProfileEdit): boolean {
  const left = a as unknown as Record<string, unknown>;
  const right = b as unknown as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => left[key] === right[key]);
}

/** Whether `reason` is the row's own deny entry, the one its switch writes. */
export function isOwnEntry(reason: HiddenReason, row: PrimitiveRow): boolean {
  return reason.fix !== undefined && sameEdit(reason.fix, switchEdit(row, true));
}

export interface Fix {
  label: string;
  edit: ProfileEdit;
}

/** What a button that makes `edit` says. */
function labelOf(edit: ProfileEdit): string {
  switch (edit.op) {
    case 'setTool':
      return 'Switch it on';
    case 'removePattern':
      return `Take "${edit.pattern}" out of ${edit.section}.${edit.list}`;
    case 'addPattern':
      return `Add it to ${edit.section}.${edit.list}`;
    case 'setGroup':
      return `Switch group ${edit.group} ${edit.on ? 'on' : 'off'}`;
    case 'setTag':
      return `Neither require nor exclude tag ${edit.tag}`;
    case 'setTagExpr':
      return edit.expr ? `Set the tag expression to ${edit.expr}` : 'Clear the tag expression';
    case 'setConcern':
      return `Set ${edit.concern} to ${edit.value ?? 'any'}`;
    case 'setDescription':
    case 'setEnforce':
    case 'setDisclosure':
    case 'setPinned':
      return 'Change the profile';
  }
}

/**
 * Whether `reason` is the quarantine (DESIGN §9): no profile edit lifts it;
 * an approval on the Quarantine screen does.
 */
export function isQuarantine(reason: HiddenReason): boolean {
  return reason.text.startsWith('quarantined: ');
}

/** The edit that lifts `reason` for `row`, or null when the app has none. */
export function fixFor(reason: HiddenReason, row: PrimitiveRow): Fix | null {
  if (!reason.fix) return null;
  if (isOwnEntry(reason, row)) return { label: 'Switch it on', edit: reason.fix };
  return { label: labelOf(reason.fix), edit: reason.fix };
}

/** The sentence a hidden row shows. */
export function hiddenText(row: PrimitiveRow): string {
  return `hidden by ${row.hiddenBy.join('; ')}`;
}
