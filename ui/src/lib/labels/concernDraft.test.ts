import { describe, expect, it } from 'vitest';
import { definitionOf, draftOf, valuesOf } from './concernDraft';

describe('a concern typed in the form', () => {
  it('takes its values in order, trimmed, blanks left out', () => {
    expect(valuesOf(' fast ,, slow,  ')).toEqual(['fast', 'slow']);
    expect(valuesOf('')).toEqual([]);
  });

  it('makes a definition; an edited one keeps its default while that is still a value', () => {
    const cost = { name: 'cost', values: ['minimal', 'moderate', 'high'], default: 'moderate', ordered: true };
    expect(definitionOf({ ...draftOf(cost), values: 'minimal, moderate, high, extreme' }, cost)).toEqual({
      ...cost,
      values: ['minimal', 'moderate', 'high', 'extreme'],
    });
    expect(definitionOf({ ...draftOf(cost), values: 'cheap, dear' }, cost)).toEqual({
      name: 'cost',
      values: ['cheap', 'dear'],
      ordered: true,
    });
    expect(definitionOf({ name: ' speed ', values: 'fast, slow', ordered: false, description: ' How quick ' })).toEqual({
      name: 'speed',
      values: ['fast', 'slow'],
      ordered: false,
      description: 'How quick',
    });
  });
});
