import { expect, it } from 'vitest';
import { deleteWarning, hostTitle, listOf, usedByText } from './hosts';

it('names the hosts that use a profile by their titles', () => {
  expect(usedByText(['claude-code', 'codex'])).toBe('used by Claude Code, Codex CLI');
  expect(usedByText([])).toBeNull();
  expect(usedByText(undefined)).toBeNull();
});

it('titles a host the page does not know by its id, and lists words as a sentence does', () => {
  expect(hostTitle('lmstudio')).toBe('LM Studio');
  expect(hostTitle('newhost')).toBe('newhost');
  expect(listOf(['a'])).toBe('a');
  expect(listOf(['a', 'b', 'c'])).toBe('a, b and c');
});

it('warns that deleting a profile leaves the hosts that use it without tools', () => {
  expect(deleteWarning(['cursor'])).toBe(' Cursor uses it and would lose its tools.');
  expect(deleteWarning(['cursor', 'zed'])).toBe(' Cursor and Zed use it and would lose their tools.');
  expect(deleteWarning(undefined)).toBe('');
});
