import { beforeEach, describe, expect, it } from 'vitest';
import { aRow, aView, type FakeBackend } from '../backend/fake';
import { fakeApp } from '../fakeApp';
import { HOSTS } from '../hosts';
import type { Stores } from '../stores';

let fake: FakeBackend;
let stores: Stores;

beforeEach(async () => {
  ({ fake, stores } = fakeApp());
  await stores.profiles.load();
  fake.reset();
});

describe('the profile being edited', () => {
  it('is the default one at first', () => {
    expect(stores.profiles.editing).toBe('default');
  });

  it('reloads its document, rows, token report and snippets when another is chosen', async () => {
    fake.on('profile_show', ({ name }) => aView({ description: `the ${name} profile` }));
    await stores.profiles.select('work');
    expect(stores.profiles.profile.value?.document).toEqual({ description: 'the work profile' });
    expect(fake.argsOf('catalog_rows')).toEqual([{ profile: 'work' }]);
    expect(fake.argsOf('token_report')).toEqual([{ profile: 'work' }]);
    expect(fake.argsOf('host_snippet').map((args) => args.profile)).toEqual(HOSTS.map(() => 'work'));
  });

  it('shows the error of a broken profile file', async () => {
    fake.fail('profile_show', {
      code: 'broken_file',
      message: 'profiles/work.json:2:23: tools.allow[0]: invalid glob "gh__["',
    });
    await stores.profiles.select('work');
    expect(stores.profiles.profile.error).toBe('profiles/work.json:2:23: tools.allow[0]: invalid glob "gh__["');
  });

  it("never shows the last profile's document, rows or tokens for one that cannot be read", async () => {
    fake
      .on('profile_show', () => aView({ description: 'the default profile' }))
      .on('catalog_rows', () => [aRow({ exposedName: 'demo__echo' })]);
    await stores.profiles.reloadEditing();
    expect(stores.tools.rows.value).toHaveLength(1);

    const broken = { code: 'broken_file' as const, message: 'profiles/work.json:1:1: expected a value' };
    fake.fail('profile_show', broken).fail('catalog_rows', broken).fail('token_report', broken);
    await stores.profiles.select('work');
    expect(stores.profiles.profile.value).toBeNull();
    expect(stores.tools.rows.value).toEqual([]);
    expect(stores.meter.report.value).toBeNull();
    expect(stores.meter.report.error).toBe('profiles/work.json:1:1: expected a value');
  });

  it('keeps what it shows when a reload of the same profile fails', async () => {
    fake.on('catalog_rows', () => [aRow({ exposedName: 'demo__echo' })]);
    await stores.tools.load();
    fake.fail('catalog_rows', { code: 'io', message: 'cannot read config.json: Permission denied' });
    await stores.tools.load();
    expect(stores.tools.rows.error).toBe('cannot read config.json: Permission denied');
    expect(stores.tools.rows.value).toHaveLength(1);
  });
});

describe('edits on the Profiles screen', () => {
  it('sets a concern, and clears it with any', async () => {
    fake.on('profile_edit', ({ edit }) =>
      aView(edit.op === 'setConcern' && edit.value ? { concerns: { [edit.concern]: edit.value } } : {}),
    );
    await stores.profiles.change({ op: 'setConcern', concern: 'security', value: 'high' });
    expect(stores.profiles.profile.value?.document).toEqual({ concerns: { security: 'high' } });
    await stores.profiles.change({ op: 'setConcern', concern: 'security', value: null });
    expect(fake.argsOf('profile_edit').map((args) => args.edit)).toEqual([
      { op: 'setConcern', concern: 'security', value: 'high' },
      { op: 'setConcern', concern: 'security', value: null },
    ]);
    expect(stores.profiles.profile.value?.document).toEqual({});
    expect(fake.count('token_report'), 'the meter follows each edit').toBe(2);
  });

  it('keeps a refused value as the sentence the shell gave, the profile as it was', async () => {
    fake.on('profile_show', () => aView({ concerns: { security: 'low' } }));
    await stores.profiles.loadProfile();
    fake.fail('profile_edit', {
      code: 'invalid',
      message: 'concern security has no value "extreme"; use high, medium or low',
      field: 'concerns.security',
    });
    expect(await stores.profiles.change({ op: 'setConcern', concern: 'security', value: 'extreme' })).toBe(false);
    expect(stores.profiles.edit.error).toBe('concern security has no value "extreme"; use high, medium or low');
    expect(stores.profiles.profile.value?.document).toEqual({ concerns: { security: 'low' } });
  });
});

describe('managing profiles', () => {
  it('creates a clone and shows the new list', async () => {
    fake.on('profile_create', ({ name }) => [
      { name: 'default', valid: true, active: true },
      { name, valid: true, active: false },
    ]);
    expect(await stores.profiles.create(' work-copy ', 'work')).toBe(true);
    expect(fake.argsOf('profile_create')).toEqual([{ name: 'work-copy', from: 'work' }]);
    expect(stores.profiles.list.value.map((summary) => summary.name)).toEqual(['default', 'work-copy']);
  });

  it('keeps the error of a taken name and the list as it was', async () => {
    const before = stores.profiles.list.value;
    fake.fail('profile_create', { code: 'exists', message: 'profile "work" exists; choose another name' });
    expect(await stores.profiles.create('work')).toBe(false);
    expect(stores.profiles.manage.error).toBe('profile "work" exists; choose another name');
    expect(stores.profiles.list.value).toBe(before);
  });

  it('keeps editing a renamed profile under its new name', async () => {
    await stores.profiles.select('work');
    fake.on('profile_rename', () => [{ name: 'default', valid: true, active: true }, { name: 'office', valid: true, active: false }]);
    await stores.profiles.rename('work', 'office');
    expect(stores.profiles.editing).toBe('office');
    expect(fake.argsOf('profile_show').at(-1)).toEqual({ name: 'office' });
  });

  it('goes back to the default profile when the one being edited is deleted', async () => {
    await stores.profiles.select('work');
    fake.on('profile_delete', () => [{ name: 'default', valid: true, active: true }]);
    await stores.profiles.remove('work');
    expect(stores.profiles.editing).toBe('default');
    expect(fake.argsOf('catalog_rows').at(-1)).toEqual({ profile: 'default' });
  });
});

describe('the active profile', () => {
  it('is the one the list marks, and making another active reloads the list from the shell', async () => {
    expect(stores.profiles.active).toBe('default');
    fake.on('profile_make_active', ({ name }) => [
      { name: 'default', valid: true, active: name === 'default' },
      { name: 'work', valid: true, active: name === 'work' },
    ]);
    expect(await stores.profiles.makeActive('work')).toBe(true);
    expect(fake.argsOf('profile_make_active')).toEqual([{ name: 'work' }]);
    expect(stores.profiles.active).toBe('work');
    expect(stores.profiles.editing).toBe('default');
  });

  it("keeps the list and shows the shell's sentence when the switch is refused", async () => {
    fake.fail('profile_make_active', { code: 'broken_file', message: 'profiles/work.json:1:1: expected a value' });
    expect(await stores.profiles.makeActive('work')).toBe(false);
    expect(stores.profiles.manage.error).toBe('profiles/work.json:1:1: expected a value');
    expect(stores.profiles.active).toBe('default');
  });
});
