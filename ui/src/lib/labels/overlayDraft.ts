// The form that edits an overlay rule: what was typed, made into the
// overlay the library checks and writes in the rule's place.

import type { ConcernDefinition, Overlay } from '../backend';
import { valuesOf } from './concernDraft';

/**
 * A concern's choice in the form besides its values: not said by the rule,
 * or its value cleared (`none`, as in the Tools screen's selection bar).
 */
export const UNSET = '';
export const CLEARED = 'none';

export interface OverlayDraft {
  match: string;
  /** Lists separated by commas (`tickets, search`). */
  groups: string;
  tags: string;
  removeGroups: string;
  removeTags: string;
  /** Per concern: UNSET, CLEARED (its value taken away) or one of its values. */
  concerns: Record<string, string>;
  title: string;
  description: string;
}

/** The form filled in with `overlay`, to edit it. */
export function overlayDraftOf(overlay: Overlay): OverlayDraft {
  const concerns: Record<string, string> = {};
  for (const name of overlay.removeConcerns ?? []) concerns[name] = CLEARED;
  for (const [name, value] of Object.entries(overlay.concerns ?? {})) concerns[name] = value;
  return {
    match: overlay.match,
    groups: (overlay.groups ?? []).join(', '),
    tags: (overlay.tags ?? []).join(', '),
    removeGroups: (overlay.removeGroups ?? []).join(', '),
    removeTags: (overlay.removeTags ?? []).join(', '),
    concerns,
    title: overlay.title ?? '',
    description: overlay.description ?? '',
  };
}

/**
 * The concerns the form offers: those in force, then any the rule names
 * that are no longer defined (a load allows them, so the rule keeps them).
 */
export function concernChoices(
  definitions: ConcernDefinition[],
  draft: OverlayDraft,
): { name: string; values: string[]; description?: string }[] {
  const known = new Set(definitions.map((d) => d.name));
  const leftover = Object.entries(draft.concerns)
    .filter(([name, value]) => !known.has(name) && value !== UNSET)
    .map(([name, value]) => ({ name, values: value === CLEARED ? [] : [value] }));
  return [...definitions, ...leftover];
}

/**
 * The overlay `draft` makes: lists split on commas, trimmed, blanks left
 * out; blank text and empty lists omitted. The library trims, checks and
 * refuses what is not valid.
 */
export function overlayOf(draft: OverlayDraft): Overlay {
  const overlay: Overlay = { match: draft.match.trim() };
  const list = (key: 'groups' | 'tags' | 'removeGroups' | 'removeTags') => {
    const items = valuesOf(draft[key]);
    if (items.length > 0) overlay[key] = items;
  };
  list('groups');
  list('tags');
  const concerns = Object.entries(draft.concerns).filter(([, value]) => value !== UNSET && value !== CLEARED);
  if (concerns.length > 0) overlay.concerns = Object.fromEntries(concerns);
  list('removeGroups');
  list('removeTags');
  const cleared = Object.keys(draft.concerns).filter((name) => draft.concerns[name] === CLEARED);
  if (cleared.length > 0) overlay.removeConcerns = cleared;
  const title = draft.title.trim();
  if (title) overlay.title = title;
  const description = draft.description.trim();
  if (description) overlay.description = description;
  return overlay;
}

/** Whether two overlays say the same (the order of a rule's concerns does not matter). */
export function sameOverlay(a: Overlay, b: Overlay): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(overlay: Overlay): unknown {
  const concerns = Object.entries(overlay.concerns ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return [
    overlay.match,
    overlay.groups ?? [],
    overlay.tags ?? [],
    concerns,
    overlay.removeGroups ?? [],
    overlay.removeTags ?? [],
    overlay.removeConcerns ?? [],
    overlay.title ?? null,
    overlay.description ?? null,
  ];
}
