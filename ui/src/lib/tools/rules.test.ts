import { describe, expect, it } from 'vitest';
import type { HiddenReason } from '../backend';
import { aRow, hiddenBy } from '../backend/fake';
import { fixFor, hiddenText, isOwnEntry, isQuarantine } from './rules';

const tool = aRow({ exposedName: 'gh__delete_repo' });
const own: HiddenReason = {
  text: 'tools.deny "gh__delete_repo"',
  fix: { op: 'setTool', exposedName: 'gh__delete_repo', on: true },
};
const glob: HiddenReason = {
  text: 'tools.deny "*delete*"',
  fix: { op: 'removePattern', section: 'tools', list: 'deny', pattern: '*delete*' },
};

describe('what a hidden row offers', () => {
  it("tells the row's own deny entry from a glob that also matches it", () => {
    expect(isOwnEntry(own, tool)).toBe(true);
    expect(isOwnEntry(glob, tool)).toBe(false);
    const prompt = aRow({ exposedName: 'gh__summarise', kind: 'prompt' });
    const promptOwn: HiddenReason = {
      text: 'prompts.deny "gh__summarise"',
      fix: { op: 'removePattern', section: 'prompts', list: 'deny', pattern: 'gh__summarise' },
    };
    expect(isOwnEntry(promptOwn, prompt), "a prompt's own entry").toBe(true);
    expect(isOwnEntry(promptOwn, tool), 'another row').toBe(false);
  });

  it('labels the edit the library sends for each rule', () => {
    expect(fixFor(own, tool)).toEqual({ label: 'Switch it on', edit: own.fix });
    expect(fixFor(glob, tool)).toEqual({ label: 'Take "*delete*" out of tools.deny', edit: glob.fix });
    const labels = [
      { op: 'addPattern', section: 'tools', list: 'allow', pattern: 'gh__delete_repo' },
      { op: 'setGroup', group: 'admin', on: true },
      { op: 'setTag', tag: 'destructive', state: 'ignore' },
      { op: 'setConcern', concern: 'security', value: null },
    ].map((fix) => fixFor({ text: 'a rule', fix } as HiddenReason, tool)?.label);
    expect(labels).toEqual([
      'Add it to tools.allow',
      'Switch group admin on',
      'Neither require nor exclude tag destructive',
      'Set security to any',
    ]);
  });

  it('offers nothing for a rule no edit of the app lifts', () => {
    expect(fixFor({ text: 'uriPrefixes: starts with none of mcp://tools/x/' }, tool)).toBeNull();
  });

  it('tells the quarantine, which the Quarantine screen lifts, from profile rules', () => {
    const quarantined = { text: 'quarantined: description changed' };
    expect(isQuarantine(quarantined)).toBe(true);
    expect(fixFor(quarantined, tool), 'no profile edit lifts it').toBeNull();
    expect(isQuarantine(glob)).toBe(false);
  });

  it('says every rule in the sentence of a hidden row', () => {
    const row = hiddenBy(tool, glob, { text: 'tags.none destructive' });
    expect(hiddenText(row)).toBe('hidden by tools.deny "*delete*"; tags.none destructive');
  });
});
