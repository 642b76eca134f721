import { describe, expect, it } from 'vitest';
import type { HiddenReason } from '../backend';
import { aRow, hiddenBy } from '../backend/fake';
import { fixFor, hiddenText, isOwnEntry, isQuarantine, switchEdit } from './rules';

// Which rule is the row's own entry, and what a fix's button says, the
// library decides (crates/sieve-api: profiles.rs, tests/api.rs); the app
// reads its fields. These reasons are as the library sends them.
const own: HiddenReason = {
  text: 'tools.deny "gh__delete_repo"',
  fix: { op: 'setTool', exposedName: 'gh__delete_repo', on: true },
  label: 'Switch it on',
  own: true,
  quarantine: false,
};
const glob: HiddenReason = {
  text: 'tools.deny "*delete*"',
  fix: { op: 'removePattern', section: 'tools', list: 'deny', pattern: '*delete*' },
  label: 'Take "*delete*" out of tools.deny',
  own: false,
  quarantine: false,
};
const quarantined: HiddenReason = { text: 'quarantined: description changed', own: false, quarantine: true };

describe("a row's switch", () => {
  it('writes what the library says it writes, on and off', () => {
    const prompt = aRow({
      exposedName: 'gh__summarise',
      kind: 'prompt',
      switch: {
        on: { op: 'removePattern', section: 'prompts', list: 'deny', pattern: 'gh__summarise' },
        off: { op: 'addPattern', section: 'prompts', list: 'deny', pattern: 'gh__summarise' },
      },
    });
    expect(switchEdit(prompt, true)).toEqual(prompt.switch.on);
    expect(switchEdit(prompt, false)).toEqual(prompt.switch.off);
  });
});

describe('what a hidden row offers', () => {
  it("tells the row's own entry by the library's flag", () => {
    expect(isOwnEntry(own)).toBe(true);
    expect(isOwnEntry(glob)).toBe(false);
    expect(isOwnEntry({ ...glob, own: true }), 'the flag, not the edit, decides').toBe(true);
  });

  it("offers the library's edit under the library's label", () => {
    expect(fixFor(own)).toEqual({ label: 'Switch it on', edit: own.fix });
    expect(fixFor(glob)).toEqual({ label: 'Take "*delete*" out of tools.deny', edit: glob.fix });
  });

  it('offers nothing for a rule the library sends no edit or no label for', () => {
    expect(fixFor({ text: 'uriPrefixes: starts with none of mcp://tools/x/', own: false, quarantine: false })).toBeNull();
    expect(fixFor({ ...glob, label: undefined }), 'an edit without a label').toBeNull();
    expect(fixFor({ ...glob, fix: undefined }), 'a label without an edit').toBeNull();
  });

  it('tells the quarantine, which the Quarantine screen lifts, by its flag', () => {
    expect(isQuarantine(quarantined)).toBe(true);
    expect(fixFor(quarantined), 'no profile edit lifts it').toBeNull();
    expect(isQuarantine(glob)).toBe(false);
    expect(isQuarantine({ ...quarantined, quarantine: false }), 'not by its text').toBe(false);
  });

  it('says every rule in the sentence of a hidden row', () => {
    const row = hiddenBy(aRow({ exposedName: 'gh__delete_repo' }), glob, { text: 'tags.none destructive' });
    expect(hiddenText(row)).toBe('hidden by tools.deny "*delete*"; tags.none destructive');
  });
});
