import { beforeEach, describe, expect, it } from 'vitest';
import { aQuarantined, type FakeBackend } from '../backend/fake';
import { aSettings, fakeApp } from '../fakeApp';
import type { Stores } from '../stores';

let fake: FakeBackend;
let stores: Stores;

const search = aQuarantined({ exposedName: 'demo__search' });
const wipe = aQuarantined({
  exposedName: 'demo__wipe',
  reason: 'quarantined: new tool',
  new: true,
  changed: [],
  approved: null,
});
const kept = aQuarantined({
  exposedName: 'demo__echo',
  reason: 'quarantined: description changed (kept hidden)',
  keptHidden: true,
});

beforeEach(async () => {
  ({ fake, stores } = fakeApp());
  fake.on('quarantine_list', () => [kept, search, wipe]);
  await Promise.all([stores.quarantine.load(), stores.connect.loadSettings()]);
  fake.reset();
});

describe('the list', () => {
  it('puts the tools to review apart from those kept hidden, in the order the shell sends', () => {
    expect(stores.quarantine.toReview.map((t) => t.exposedName)).toEqual(['demo__search', 'demo__wipe']);
    expect(stores.quarantine.keptHidden.map((t) => t.exposedName)).toEqual(['demo__echo']);
  });

  it('keeps the list shown when a reload fails, with the sentence', async () => {
    fake.fail('quarantine_list', { code: 'broken_file', message: 'approvals.json:1:1: expected a value; fix or remove it' });
    expect(await stores.quarantine.load()).toBe(false);
    expect(stores.quarantine.list.error).toBe('approvals.json:1:1: expected a value; fix or remove it');
    expect(stores.quarantine.list.value).toHaveLength(3);
  });
});

describe('decisions', () => {
  it('approves one tool by its exposed name, then reloads the list', async () => {
    fake
      .on('quarantine_approve', ({ tools }) => ({ tools }))
      .on('quarantine_list', () => [kept, wipe]);
    expect(await stores.quarantine.approve(['demo__search'])).toBe(true);
    expect(fake.argsOf('quarantine_approve')).toEqual([{ tools: ['demo__search'] }]);
    expect(fake.count('quarantine_list')).toBe(1);
    expect(stores.quarantine.toReview.map((t) => t.exposedName)).toEqual(['demo__wipe']);
  });

  it('approves all the tools to review, not the ones kept hidden', async () => {
    fake.on('quarantine_approve', ({ tools }) => ({ tools })).on('quarantine_list', () => [kept]);
    await stores.quarantine.approveAll();
    expect(fake.argsOf('quarantine_approve')).toEqual([{ tools: ['demo__search', 'demo__wipe'] }]);
    expect(stores.quarantine.toReview).toEqual([]);
  });

  it('keeps a tool hidden, which moves it to the kept ones', async () => {
    fake
      .on('quarantine_keep_hidden', ({ tools }) => ({ tools }))
      .on('quarantine_list', () => [kept, { ...search, keptHidden: true }, wipe]);
    expect(await stores.quarantine.keepHidden(['demo__search'])).toBe(true);
    expect(fake.argsOf('quarantine_keep_hidden')).toEqual([{ tools: ['demo__search'] }]);
    expect(stores.quarantine.keptHidden.map((t) => t.exposedName)).toEqual(['demo__echo', 'demo__search']);
  });

  it('shows a refusal as its sentence and leaves the list as it was', async () => {
    fake.fail('quarantine_approve', {
      code: 'not_found',
      message: '"demo__gone" is not in quarantine; `mcp-sieve tools quarantined` lists the tools that are',
      field: 'tools',
    });
    expect(await stores.quarantine.approve(['demo__gone'])).toBe(false);
    expect(stores.quarantine.decide.error).toContain('is not in quarantine');
    expect(fake.count('quarantine_list'), 'no reload after a refusal').toBe(0);
    expect(stores.quarantine.list.value).toHaveLength(3);
  });
});

describe('the setting', () => {
  it('reads settings.quarantine and writes the switch, for the Connect screen too', async () => {
    expect(stores.quarantine.on).toBe(true);
    fake.on('settings_set_quarantine', ({ on }) => aSettings({ quarantine: on }));
    expect(await stores.quarantine.setOn(false)).toBe(true);
    expect(fake.argsOf('settings_set_quarantine')).toEqual([{ on: false }]);
    expect(stores.quarantine.on).toBe(false);
    expect(stores.connect.settings.value?.quarantine, 'one copy of the settings').toBe(false);

    fake.fail('settings_set_quarantine', { code: 'broken_file', message: 'config.json:3:1: expected a value' });
    expect(await stores.quarantine.setOn(true)).toBe(false);
    expect(stores.quarantine.setting.error).toBe('config.json:3:1: expected a value');
    expect(stores.quarantine.on).toBe(false);
  });
});
