import { expect, it } from 'vitest';
import { retryText } from './retry';

const now = Date.UTC(2026, 10, 26, 12, 0, 0);

it('counts the seconds to the next attempt of a server that is down', () => {
  expect(retryText({ state: 'down', retryAt: now + 11_200 }, now)).toBe('next try in 12 s');
});

it('gives the time of an attempt a minute or more away', () => {
  const at = now + 5 * 60_000;
  expect(retryText({ state: 'down', retryAt: at }, now)).toBe(
    `next try at ${new Date(at).toLocaleTimeString()}`,
  );
});

it('says an attempt is under way once its time has passed', () => {
  expect(retryText({ state: 'down', retryAt: now - 1 }, now)).toBe('trying again now');
});

it('says nothing of a server that is up, or down with no attempt planned', () => {
  expect(retryText({ state: 'up', retryAt: now + 1000 }, now)).toBeNull();
  expect(retryText({ state: 'down' }, now)).toBeNull();
});
