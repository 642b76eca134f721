// The form that adds or edits a concern definition: what was typed, made
// into the definition the library checks.

import type { ConcernDefinition } from '../backend';

export interface ConcernDraft {
  name: string;
  /** The values in order, separated by commas (`high, medium, low`). */
  values: string;
  ordered: boolean;
  description: string;
}

export function emptyDraft(): ConcernDraft {
  return { name: '', values: '', ordered: true, description: '' };
}

/** The form filled in with `definition`, to edit it. */
export function draftOf(definition: ConcernDefinition): ConcernDraft {
  return {
    name: definition.name,
    values: definition.values.join(', '),
    ordered: definition.ordered ?? false,
    description: definition.description ?? '',
  };
}

/** The values typed, in order, trimmed; blanks left out. */
export function valuesOf(text: string): string[] {
  return text
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);
}

/**
 * The definition `draft` makes. An edited concern keeps its default while
 * that is still one of its values; the library refuses what is not valid.
 */
export function definitionOf(draft: ConcernDraft, editing?: ConcernDefinition): ConcernDefinition {
  const values = valuesOf(draft.values);
  const definition: ConcernDefinition = { name: draft.name.trim(), values, ordered: draft.ordered };
  const description = draft.description.trim();
  if (description) definition.description = description;
  if (editing?.default && values.includes(editing.default)) definition.default = editing.default;
  return definition;
}
