import { describe, expect, it } from 'vitest';
import { aLabelsView } from '../backend/fake';
import { CLEARED, concernChoices, overlayDraftOf, overlayOf, sameOverlay, UNSET } from './overlayDraft';

const rule = {
  match: 'github__*issue*',
  groups: ['tickets'],
  tags: ['slow'],
  concerns: { cost: 'high' },
  removeGroups: ['issues'],
  removeConcerns: ['security'],
  title: 'Issues',
};

describe('a rule edited in its form', () => {
  it('is filled in with the overlay, and the form unchanged makes the same overlay', () => {
    const draft = overlayDraftOf(rule);
    expect(draft).toMatchObject({
      match: 'github__*issue*',
      groups: 'tickets',
      removeGroups: 'issues',
      concerns: { cost: 'high', security: CLEARED },
      description: '',
    });
    expect(overlayOf(draft)).toEqual(rule);
    expect(sameOverlay(overlayOf(draft), rule)).toBe(true);
  });

  it('splits lists on commas, leaves blanks and unset concerns out, and drops blank text', () => {
    const draft = {
      ...overlayDraftOf(rule),
      match: ' github__search_* ',
      groups: ' search ,, finding ',
      tags: '',
      concerns: { cost: UNSET, security: 'low' },
      title: '  ',
      description: ' Searches. ',
    };
    expect(overlayOf(draft)).toEqual({
      match: 'github__search_*',
      groups: ['search', 'finding'],
      concerns: { security: 'low' },
      removeGroups: ['issues'],
      description: 'Searches.',
    });
  });

  it('offers the concerns in force, and keeps one the rule names that is no longer defined', () => {
    const { concerns } = aLabelsView();
    const draft = overlayDraftOf({ match: '*', concerns: { legacy: 'x' } });
    expect(concernChoices(concerns, draft).map((c) => [c.name, c.values])).toEqual([
      ['security', ['high', 'medium', 'low']],
      ['cost', ['minimal', 'moderate', 'high']],
      ['legacy', ['x']],
    ]);
  });

  it("tells a rule changed in config.json from the same rule, whatever the order of its concerns", () => {
    const reordered = { ...rule, concerns: { b: '2', a: '1' } };
    expect(sameOverlay({ ...rule, concerns: { a: '1', b: '2' } }, reordered)).toBe(true);
    expect(sameOverlay(rule, { ...rule, groups: ['tickets', 'more'] })).toBe(false);
    expect(sameOverlay(rule, { ...rule, title: undefined })).toBe(false);
    expect(sameOverlay({ match: 'a', groups: [] }, { match: 'a' })).toBe(true);
  });
});
