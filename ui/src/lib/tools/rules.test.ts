import { describe, expect, it } from 'vitest';
import { aRow } from '../backend/fake';
import { fixFor, hiddenText, isOwnEntry, parseRule } from './rules';

const tool = aRow({ exposedName: 'gh__delete_repo', visible: false });

describe('the rules of hiddenBy', () => {
  it('reads the reasons sieve-core writes', () => {
    expect(parseRule('tools.deny "*_delete_*"')).toEqual({ rule: 'deny', section: 'tools', pattern: '*_delete_*' });
    expect(parseRule('prompts.allow: matches none of "gh__*"')).toEqual({ rule: 'allow', section: 'prompts' });
    expect(parseRule('groups.none billing')).toEqual({ rule: 'groupOff', group: 'billing' });
    expect(parseRule('tags.none destructive')).toEqual({ rule: 'tagExcluded', tag: 'destructive' });
    expect(parseRule('tags.all stable (missing)')).toEqual({ rule: 'tagRequired', tag: 'stable' });
    expect(parseRule('concern security=high vs low')).toEqual({ rule: 'concern', concern: 'security' });
    expect(parseRule('servers: "gh" is not listed')).toEqual({ rule: 'other' });
    expect(parseRule('groups: in none of issues, pull_requests')).toEqual({ rule: 'other' });
  });

  it('reads an escaped quote inside a pattern', () => {
    expect(parseRule('tools.deny "a\\"b"')).toEqual({ rule: 'deny', section: 'tools', pattern: 'a"b' });
  });

  it("tells the row's own deny entry from a glob that also matches it", () => {
    expect(isOwnEntry('tools.deny "gh__delete_repo"', tool)).toBe(true);
    expect(isOwnEntry('tools.deny "*delete*"', tool)).toBe(false);
    expect(isOwnEntry('prompts.deny "gh__delete_repo"', tool), 'another section').toBe(false);
  });

  it('offers the edit that lifts each rule the app can change', () => {
    expect(fixFor('tools.deny "*delete*"', tool)).toEqual({
      label: 'Take "*delete*" out of tools.deny',
      edit: { op: 'removePattern', section: 'tools', list: 'deny', pattern: '*delete*' },
    });
    expect(fixFor('tools.deny "gh__delete_repo"', tool)?.edit).toEqual({
      op: 'setTool',
      exposedName: 'gh__delete_repo',
      on: true,
    });
    expect(fixFor('tools.allow: matches none of "gh__list_*"', tool)?.edit).toEqual({
      op: 'addPattern',
      section: 'tools',
      list: 'allow',
      pattern: 'gh__delete_repo',
    });
    expect(fixFor('groups.none admin', tool)?.edit).toEqual({ op: 'setGroup', group: 'admin', on: true });
    expect(fixFor('tags.none destructive', tool)?.edit).toEqual({ op: 'setTag', tag: 'destructive', state: 'ignore' });
    expect(fixFor('tags.all stable (missing)', tool)?.edit).toEqual({ op: 'setTag', tag: 'stable', state: 'ignore' });
    expect(fixFor('concern security=high vs low', tool)?.edit).toEqual({
      op: 'setConcern',
      concern: 'security',
      value: null,
    });
    expect(fixFor('uriPrefixes: starts with none of mcp://tools/x/', tool)).toBeNull();
  });

  it('says every rule in the sentence of a hidden row', () => {
    const row = { ...tool, hiddenBy: ['tools.deny "*_delete_*"', 'tags.none destructive'] };
    expect(hiddenText(row)).toBe('hidden by tools.deny "*_delete_*"; tags.none destructive');
  });
});
