// The approved and the quarantined definition of a tool, part by part, for
// reading side by side: which parts to show, their text, and within a
// changed part the words (or, in JSON, the lines) that differ. Which parts
// changed is the library's word (`changed`); this only lays them out.

import type { QuarantinedTool, ToolDefinition } from '../backend';

export type Field = keyof ToolDefinition;

/** The approved fields in the library's order, with its words for each. */
export const FIELDS: readonly { field: Field; label: string }[] = [
  { field: 'name', label: 'name' },
  { field: 'title', label: 'title' },
  { field: 'description', label: 'description' },
  { field: 'inputSchema', label: 'input schema' },
  { field: 'outputSchema', label: 'output schema' },
  { field: 'annotations', label: 'annotations' },
];

/** Shown whenever either side has them; the others only when they changed. */
const ALWAYS: readonly Field[] = ['title', 'description', 'inputSchema'];

export type SegmentKind = 'same' | 'removed' | 'added';

/** A run of text: in both definitions, only in the approved one, or only in the new one. */
export interface Segment {
  text: string;
  kind: SegmentKind;
}

export interface Part {
  field: Field;
  label: string;
  /** The approved text, or null where the approved definition has none. */
  old: Segment[] | null;
  /** The new text, or null where the new definition has none. */
  new: Segment[] | null;
  /** The library counts this part as changed. */
  changed: boolean;
  /** Pretty JSON rather than prose. */
  json: boolean;
}

/** JSON with the keys of every object sorted, so key order never reads as a change (as the library hashes it). */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** A field's text: a string as it is, anything else as pretty JSON; null when absent. */
export function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  return JSON.stringify(sorted(value), null, 2);
}

/**
 * Words, the spaces between them and each other character on its own (so
 * `things.` and `things` share their word), joining back into the text.
 */
function words(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
}

/** Lines, each with its line break. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Adds `text` to `segments`, merged into the last one when it is of the same kind. */
function push(segments: Segment[], text: string, kind: SegmentKind): void {
  const last = segments.at(-1);
  if (last?.kind === kind) last.text += text;
  else if (text !== '') segments.push({ text, kind });
}

/**
 * Past this many cells of the comparison table, the differing middle is
 * marked whole: a rewritten 2,000-line schema is not read word by word.
 */
const MAX_CELLS = 1_000_000;

/**
 * The pieces of `a` and `b` marked as kept, removed (only in `a`) or added
 * (only in `b`), by a longest common subsequence.
 */
export function diffPieces(a: string[], b: string[]): { old: Segment[]; new: Segment[] } {
  const old: Segment[] = [];
  const now: Segment[] = [];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).join('');
  push(old, head, 'same');
  push(now, head, 'same');

  const x = a.slice(start, endA);
  const y = b.slice(start, endB);
  const width = y.length + 1;
  if (x.length * y.length > MAX_CELLS) {
    push(old, x.join(''), 'removed');
    push(now, y.join(''), 'added');
  } else {
    // common[i * width + j]: the longest common run of x[i..] and y[j..].
    const common = new Uint32Array((x.length + 1) * width);
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = y.length - 1; j >= 0; j--) {
        common[i * width + j] =
          x[i] === y[j]
            ? common[(i + 1) * width + j + 1] + 1
            : Math.max(common[(i + 1) * width + j], common[i * width + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) {
        push(old, x[i], 'same');
        push(now, y[j], 'same');
        i++;
        j++;
      } else if (j < y.length && (i === x.length || common[i * width + j + 1] >= common[(i + 1) * width + j])) {
        push(now, y[j], 'added');
        j++;
      } else {
        push(old, x[i], 'removed');
        i++;
      }
    }
  }

  const tail = a.slice(endA).join('');
  push(old, tail, 'same');
  push(now, tail, 'same');
  return { old, new: now };
}

/**
 * The parts of `tool` to read side by side, in the library's order: title,
 * description and input schema wherever either side has them, any other
 * part the library counts as changed, and for a new tool every part it has.
 */
export function partsOf(tool: QuarantinedTool): Part[] {
  const approved = tool.approved ?? {};
  const parts: Part[] = [];
  for (const { field, label } of FIELDS) {
    const before = textOf(approved[field]);
    const after = textOf(tool.pending[field]);
    const changed = tool.changed.includes(label);
    const shown = changed || (tool.new && after !== null) || (ALWAYS.includes(field) && (before ?? after) !== null);
    if (!shown) continue;
    const json = typeof (tool.pending[field] ?? approved[field]) !== 'string';
    let old: Segment[] | null = before === null ? null : [{ text: before, kind: 'same' }];
    let now: Segment[] | null = after === null ? null : [{ text: after, kind: 'same' }];
    if (changed && before !== null && after !== null) {
      const split = json ? lines : words;
      ({ old, new: now } = diffPieces(split(before), split(after)));
    } else if (changed) {
      // Only one side has it: the whole of it is what changed.
      old = before === null ? null : [{ text: before, kind: 'removed' }];
      now = after === null ? null : [{ text: after, kind: 'added' }];
    }
    parts.push({ field, label, old, new: now, changed, json });
  }
  return parts;
}
