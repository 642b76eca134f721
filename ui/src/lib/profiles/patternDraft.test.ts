import { beforeEach, expect, it } from 'vitest';
import { aView, type FakeBackend } from '../backend/fake';
import { fakeApp } from '../fakeApp';
import type { Stores } from '../stores';
import { PatternDraft } from './patternDraft.svelte';

let fake: FakeBackend;
let stores: Stores;
let deny: PatternDraft;

const UNCLOSED = 'invalid glob "gh__[": unclosed character class; missing \']\'';

beforeEach(() => {
  ({ fake, stores } = fakeApp());
  fake.on('pattern_check', ({ pattern }) => {
    if (pattern.includes('[')) throw { code: 'invalid', message: UNCLOSED, field: 'pattern' };
    return null;
  });
  deny = new PatternDraft(stores.profiles, 'tools', 'deny');
});

it('shows why a typed glob is bad at once, and never sends it to the profile', async () => {
  await deny.input('gh__[');
  expect(fake.argsOf('pattern_check')).toEqual([{ pattern: 'gh__[' }]);
  expect(deny.error).toBe(UNCLOSED);
  expect(deny.ready, 'Add is disabled').toBe(false);

  expect(await deny.add()).toBe(false);
  expect(fake.count('profile_edit')).toBe(0);
  expect(deny.text, 'what was typed stays to be fixed').toBe('gh__[');
});

it('adds a good glob to the list, then empties the field', async () => {
  fake.on('profile_edit', () => aView({ tools: { deny: ['*_delete_*'] } }));
  await deny.input(' *_delete_* ');
  expect(deny.error).toBeNull();
  expect(deny.ready).toBe(true);

  expect(await deny.add()).toBe(true);
  expect(fake.argsOf('profile_edit')).toEqual([
    { name: 'default', edit: { op: 'addPattern', section: 'tools', list: 'deny', pattern: '*_delete_*' } },
  ]);
  expect(stores.profiles.profile.value?.document).toEqual({ tools: { deny: ['*_delete_*'] } });
  expect(deny.text).toBe('');
  expect(fake.count('catalog_rows'), 'the rows show the new rule').toBe(1);
});

it('checks text that was never checked before adding it', async () => {
  deny.text = 'gh__[';
  expect(await deny.add()).toBe(false);
  expect(deny.error).toBe(UNCLOSED);
  expect(fake.count('profile_edit')).toBe(0);
});

it('lets the answer about newer text win over a slower one about older text', async () => {
  let release: () => void = () => {};
  fake.on('pattern_check', ({ pattern }) => {
    if (pattern === 'gh__[') {
      return new Promise<null>((_, reject) => {
        release = () => reject({ code: 'invalid', message: UNCLOSED });
      });
    }
    return null;
  });
  const slow = deny.input('gh__[');
  await deny.input('gh__[a]');
  release();
  await slow;
  expect(deny.error).toBeNull();
  expect(deny.ready).toBe(true);
});

it('shows the error of a refused write under the field', async () => {
  fake.fail('profile_edit', { code: 'broken_file', message: 'profiles/default.json does not parse; fix it' });
  await deny.input('*_admin_*');
  expect(await deny.add()).toBe(false);
  expect(deny.error).toBe('profiles/default.json does not parse; fix it');
  expect(deny.text).toBe('*_admin_*');
});
