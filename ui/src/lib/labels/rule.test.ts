import { expect, it } from 'vitest';
import { partsOf } from './rule';

it('says what an overlay adds and takes away', () => {
  expect(
    partsOf({
      match: 'github__*issue*',
      groups: ['tickets'],
      tags: ['slow'],
      concerns: { cost: 'high' },
      removeGroups: ['issues'],
      removeConcerns: ['security'],
      title: 'Issues',
    }),
  ).toEqual({
    adds: ['group tickets', '#slow', 'cost=high'],
    removes: ['group issues', "security's value"],
    text: ['title "Issues"'],
  });
  expect(partsOf({ match: 'x' })).toEqual({ adds: [], removes: [], text: [] });
});
