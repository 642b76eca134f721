// What a hidden row's switch offers. The library decides it all: each row
// carries what its switch writes (`switch`), and each rule that hides it
// (`reasons`) the edit that lifts it, that button's label, whether it is
// the row's own entry and whether it is the quarantine. Here they are read.

import type { HiddenReason, PrimitiveRow, ProfileEdit } from '../backend';

/** What the row's switch writes when switched on or off. */
export function switchEdit(row: PrimitiveRow, on: boolean): ProfileEdit {
  return on ? row.switch.on : row.switch.off;
}

/** Whether `reason` is the row's own entry, the one its switch writes. */
export function isOwnEntry(reason: HiddenReason): boolean {
  return reason.own;
}

export interface Fix {
  label: string;
  edit: ProfileEdit;
}

/**
 * Whether `reason` is the quarantine (DESIGN §9): no profile edit lifts it;
 * an approval on the Quarantine screen does.
 */
export function isQuarantine(reason: HiddenReason): boolean {
  return reason.quarantine;
}

/** The button that lifts `reason`, or null when the library offers none. */
export function fixFor(reason: HiddenReason): Fix | null {
  if (reason.fix === undefined || reason.label === undefined) return null;
  return { label: reason.label, edit: reason.fix };
}

/** The sentence a hidden row shows. */
export function hiddenText(row: PrimitiveRow): string {
  return `hidden by ${row.hiddenBy.join('; ')}`;
}
