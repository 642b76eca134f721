import { expect, it } from 'vitest';
import { nameParts } from './name';

it('cuts a name after each run of separators, losing nothing', () => {
  expect(nameParts('demo__get_issue')).toEqual(['demo__', 'get_', 'issue']);
  expect(nameParts('server:everything')).toEqual(['server:', 'everything']);
  expect(nameParts('resources/read')).toEqual(['resources/', 'read']);
  expect(nameParts('plain')).toEqual(['plain']);
  expect(nameParts('__x__')).toEqual(['__', 'x__']);
  expect(nameParts('')).toEqual([]);
  for (const name of ['a.b-c_d:e/f', '_', 'github__create_pull_request']) {
    expect(nameParts(name).join('')).toBe(name);
  }
});
