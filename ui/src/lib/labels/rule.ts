// An overlay of config.json in words: what it adds to what it matches, and
// what it takes away.

import type { Overlay } from '../backend';

export interface RuleParts {
  adds: string[];
  removes: string[];
  /** The title and description hosts see instead of the server's. */
  text: string[];
}

export function partsOf(overlay: Overlay): RuleParts {
  const concerns = Object.entries(overlay.concerns ?? {}).map(([name, value]) => `${name}=${value}`);
  const text = [
    overlay.title !== undefined ? `title "${overlay.title}"` : null,
    overlay.description !== undefined ? 'its own description' : null,
  ].filter((part): part is string => part !== null);
  return {
    adds: [...(overlay.groups ?? []).map((g) => `group ${g}`), ...(overlay.tags ?? []).map((t) => `#${t}`), ...concerns],
    removes: [
      ...(overlay.removeGroups ?? []).map((g) => `group ${g}`),
      ...(overlay.removeTags ?? []).map((t) => `#${t}`),
      ...(overlay.removeConcerns ?? []).map((c) => `${c}'s value`),
    ],
    text,
  };
}
