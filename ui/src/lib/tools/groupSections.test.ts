import { describe, expect, test } from 'vitest';
import { groupSections, isSwitchedOff } from './groupSections';

describe('groupSections', () => {
  test("each server's groups beneath it, the person's own first", () => {
    const sections = groupSections([
      'playwright/page',
      'notion/page',
      'server:notion',
      'billing',
      'notion/databases',
      'server:playwright',
      'playwright/page',
    ]);
    expect(sections).toEqual([
      { server: null, entries: [{ group: 'billing', label: 'billing' }] },
      {
        server: 'notion',
        entries: [
          { group: 'server:notion', label: 'all of it' },
          { group: 'notion/databases', label: 'databases' },
          { group: 'notion/page', label: 'page' },
        ],
      },
      {
        server: 'playwright',
        entries: [
          { group: 'server:playwright', label: 'all of it' },
          { group: 'playwright/page', label: 'page' },
        ],
      },
    ]);
  });

  test('two servers that share a group name keep two switches', () => {
    const groups = groupSections(['notion/page', 'playwright/page']).flatMap((s) =>
      s.entries.map((e) => e.group),
    );
    expect(groups).toEqual(['notion/page', 'playwright/page']);
  });

  test('no groups, no sections', () => {
    expect(groupSections([])).toEqual([]);
  });
});

describe('isSwitchedOff', () => {
  test("a server's group is off when named, or named bare as older profiles do", () => {
    expect(isSwitchedOff('demo/billing', ['demo/billing'])).toBe(true);
    expect(isSwitchedOff('demo/billing', ['billing'])).toBe(true);
    expect(isSwitchedOff('demo/billing', ['other/billing'])).toBe(false);
    expect(isSwitchedOff('billing', ['demo/billing'])).toBe(false);
    expect(isSwitchedOff('server:demo', [])).toBe(false);
  });
});
