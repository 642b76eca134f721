import { beforeEach, describe, expect, it } from 'vitest';
import type { PrimitiveRow } from '../backend';
import { aLabelsView, aReport, aRow, aView, hiddenBy, type FakeBackend, type Rule } from '../backend/fake';
import { fakeApp } from '../fakeApp';
import type { Stores } from '../stores';
import { PAGE_SIZE } from './store.svelte';

let fake: FakeBackend;

const groupOff: Rule = {
  text: 'groups.none billing',
  fix: { op: 'setGroup', group: 'billing', on: true },
};
const destructiveOff: Rule = {
  text: 'tags.none destructive',
  fix: { op: 'setTag', tag: 'destructive', state: 'ignore' },
};
function ownEntry(exposedName: string): Rule {
  return { text: `tools.deny "${exposedName}"`, fix: { op: 'setTool', exposedName, on: true } };
}
let stores: Stores;

const readFile = aRow({ exposedName: 'demo__read_file', groups: ['files', 'server:demo'], tags: ['read-only'] });
const deleteFile = aRow({
  exposedName: 'demo__delete_file',
  groups: ['files', 'server:demo'],
  tags: ['destructive'],
});
const refund = aRow({ exposedName: 'demo__refund', groups: ['billing', 'server:demo'], tags: ['destructive'] });

beforeEach(async () => {
  ({ fake, stores } = fakeApp());
  fake.on('catalog_rows', () => [readFile, deleteFile, refund]);
  await Promise.all([stores.profiles.loadProfile(), stores.tools.load(), stores.meter.load()]);
  fake.reset();
});

describe('switching a group', () => {
  it('writes setGroup into the profile being edited, then reloads the rows and the token report', async () => {
    const billingOff: PrimitiveRow = hiddenBy(refund, groupOff);
    fake
      .on('profile_edit', () => aView({ groups: { none: ['billing'] } }))
      .on('catalog_rows', () => [readFile, deleteFile, billingOff])
      .on('token_report', () => aReport({ toolsAfter: 2, after: 200 }));

    expect(await stores.tools.setGroup('billing', false)).toBe(true);

    expect(fake.calls.map((call) => call.command)[0]).toBe('profile_edit');
    expect(fake.argsOf('profile_edit')).toEqual([
      { name: 'default', edit: { op: 'setGroup', group: 'billing', on: false } },
    ]);
    expect(fake.argsOf('catalog_rows')).toEqual([{ profile: 'default' }]);
    expect(fake.argsOf('token_report')).toEqual([{ profile: 'default' }]);
    expect(stores.tools.rows.value[2].visible, 'the reloaded row is hidden').toBe(false);
    expect(stores.tools.isGroupOn('billing'), 'the switch follows the written profile').toBe(false);
    expect(stores.tools.isGroupOn('files')).toBe(true);
    expect(stores.meter.report.value?.toolsAfter).toBe(2);
  });

  it('keeps the error as a sentence and changes nothing else', async () => {
    fake.fail('profile_edit', { code: 'broken_file', message: 'profiles/default.json:3:1: expected a value; fix it' });
    const rowsBefore = stores.tools.rows.value;
    const reportBefore = stores.meter.report.value;

    expect(await stores.tools.setGroup('billing', false)).toBe(false);

    expect(stores.tools.edit.error).toBe('profiles/default.json:3:1: expected a value; fix it');
    expect(fake.count('catalog_rows'), 'no reload after a failed edit').toBe(0);
    expect(fake.count('token_report')).toBe(0);
    expect(stores.tools.rows.value).toBe(rowsBefore);
    expect(stores.meter.report.value).toBe(reportBefore);
    expect(stores.tools.isGroupOn('billing')).toBe(true);
  });

  it('clears the last error when the next edit succeeds', async () => {
    fake.fail('profile_edit', { code: 'io', message: 'cannot write' });
    await stores.tools.setGroup('billing', false);
    fake.on('profile_edit', () => aView());
    await stores.tools.setGroup('billing', true);
    expect(stores.tools.edit.error).toBeNull();
  });
});

describe('a tool switch', () => {
  it('switches a visible tool off with setTool', async () => {
    fake.on('profile_edit', () => aView({ tools: { deny: ['demo__read_file'] } }));
    await stores.tools.toggle(readFile);
    expect(fake.argsOf('profile_edit')).toEqual([
      { name: 'default', edit: { op: 'setTool', exposedName: 'demo__read_file', on: false } },
    ]);
    expect(fake.count('catalog_rows')).toBe(1);
  });

  it('switches a prompt off with its own deny entry in prompts.deny', async () => {
    fake.on('profile_edit', () => aView());
    await stores.tools.toggle(aRow({ exposedName: 'demo__summarise', kind: 'prompt' }));
    expect(fake.argsOf('profile_edit')[0].edit).toEqual({
      op: 'addPattern',
      section: 'prompts',
      list: 'deny',
      pattern: 'demo__summarise',
    });
  });

  it('offers the rules that hide a tool instead of writing when its own entry is not one of them', async () => {
    const hidden = hiddenBy(refund, groupOff);
    await stores.tools.toggle(hidden);
    expect(fake.count('profile_edit'), 'nothing is written').toBe(0);
    expect(stores.tools.offering).toBe('demo__refund');
  });

  it('takes its own entry out, and offers the other rules when they still hide it', async () => {
    const hidden = hiddenBy(deleteFile, ownEntry(deleteFile.exposedName), destructiveOff);
    const stillHidden = hiddenBy(deleteFile, destructiveOff);
    fake
      .on('profile_edit', () => aView({ tags: { none: ['destructive'] } }))
      .on('catalog_rows', () => [readFile, stillHidden, refund]);

    await stores.tools.toggle(hidden);

    expect(fake.argsOf('profile_edit')[0].edit).toEqual({
      op: 'setTool',
      exposedName: 'demo__delete_file',
      on: true,
    });
    expect(stores.tools.offering).toBe('demo__delete_file');
  });

  it('offers nothing when taking its own entry out shows it', async () => {
    const hidden = hiddenBy(readFile, ownEntry(readFile.exposedName));
    fake.on('profile_edit', () => aView());
    await stores.tools.toggle(hidden);
    expect(stores.tools.offering).toBeNull();
  });
});

describe('tags', () => {
  it('reads require and exclude from the profile, and writes setTag', async () => {
    fake.on('profile_show', () => aView({ tags: { all: ['read-only'], none: ['destructive'] } }));
    await stores.profiles.loadProfile();
    expect(stores.tools.tagState('read-only')).toBe('require');
    expect(stores.tools.tagState('destructive')).toBe('exclude');
    expect(stores.tools.tagState('idempotent')).toBe('ignore');

    fake.on('profile_edit', () => aView());
    await stores.tools.setTag('destructive', 'ignore');
    expect(fake.argsOf('profile_edit')[0].edit).toEqual({ op: 'setTag', tag: 'destructive', state: 'ignore' });
  });

  it('reads the tag expression, writes it trimmed, clears it with a blank, and shows a refusal', async () => {
    fake.on('profile_show', () => aView({ tags: { expr: 'read-only and not experimental' } }));
    await stores.profiles.loadProfile();
    expect(stores.tools.tagExpr).toBe('read-only and not experimental');

    fake.on('profile_edit', () => aView());
    expect(await stores.tools.setTagExpr('  stable or idempotent ')).toBe(true);
    expect(fake.argsOf('profile_edit').at(-1)?.edit).toEqual({ op: 'setTagExpr', expr: 'stable or idempotent' });
    expect(await stores.tools.setTagExpr('   ')).toBe(true);
    expect(fake.argsOf('profile_edit').at(-1)?.edit).toEqual({ op: 'setTagExpr', expr: null });

    fake.fail('profile_edit', {
      code: 'invalid',
      message: 'the tag expression "stable and" does not read at column 11: expected a tag name',
      field: 'tags.expr',
    });
    expect(await stores.tools.setTagExpr('stable and')).toBe(false);
    expect(stores.tools.edit.error).toContain('column 11');
  });

  it("writes a tool's own text, blank for the server's, and reloads the rows", async () => {
    const loads = fake.count('catalog_rows');
    expect(await stores.tools.setOverride('demo__echo', ' Echo ', '  ')).toBe(true);
    expect(fake.argsOf('tool_set_override').at(-1)).toEqual({
      exposedName: 'demo__echo',
      title: 'Echo',
      description: null,
    });
    expect(fake.count('catalog_rows')).toBe(loads + 1);

    fake.fail('tool_set_override', { code: 'invalid', message: 'config.json cannot be written', field: 'exposedName' });
    expect(await stores.tools.setOverride('demo__echo', 'x', 'y')).toBe(false);
    expect(stores.tools.edit.error).toContain('cannot be written');
  });

  it('tries a tool under the profile being edited and keeps its outcome', async () => {
    fake.on('tool_try', ({ name }) => ({
      record: { taskId: 't-1', status: 'completed' } as never,
      answer: { content: [{ type: 'text', text: `called ${name}` }] },
    }));
    expect(await stores.tools.tryTool('demo__echo', { text: 'hi' })).toBe(true);
    expect(fake.argsOf('tool_try').at(-1)).toEqual({ profile: 'default', name: 'demo__echo', arguments: { text: 'hi' } });
    expect(stores.tools.tried?.name).toBe('demo__echo');
    expect(JSON.stringify(stores.tools.tried?.outcome.answer)).toContain('called demo__echo');

    fake.fail('tool_try', { code: 'invalid', message: 'tool "demo__echo" is hidden by profile "default" (tools.deny "demo__echo"), so it is not called' });
    expect(await stores.tools.tryTool('demo__echo', {})).toBe(false);
    expect(stores.tools.trying.error).toContain('hidden by profile');
    expect(stores.tools.tried).toBeNull();
  });

  it('lists every tag and group of the rows, server groups last', () => {
    expect(stores.tools.tags).toEqual(['destructive', 'read-only']);
    expect(stores.tools.groups).toEqual(['billing', 'files', 'server:demo']);
  });

  it("also lists the profile's tags and groups that no row has, so they can be switched back", async () => {
    fake.on('profile_show', () => aView({ groups: { none: ['legacy'] }, tags: { all: ['stable'], none: ['experimental'] } }));
    await stores.profiles.loadProfile();
    expect(stores.tools.tags).toEqual(['destructive', 'experimental', 'read-only', 'stable']);
    expect(stores.tools.groups).toEqual(['billing', 'files', 'legacy', 'server:demo']);
    expect(stores.tools.isGroupOn('legacy')).toBe(false);
  });
});

describe('the list', () => {
  const many = Array.from({ length: 2000 }, (_, i) =>
    aRow({
      exposedName: `big__tool_${String(i).padStart(4, '0')}`,
      kind: i % 10 === 0 ? 'prompt' : 'tool',
      description: i === 1234 ? 'Sends a fax to the past' : 'Does a thing',
      visible: i % 2 === 0,
    }),
  );

  beforeEach(async () => {
    fake.on('catalog_rows', () => many);
    await stores.tools.load();
  });

  it('shows 2,000 rows a page at a time', () => {
    expect(stores.tools.pageRows).toHaveLength(PAGE_SIZE);
    expect(stores.tools.pageCount).toBe(20);
    stores.tools.page = 19;
    expect(stores.tools.pageRows.at(-1)?.exposedName).toBe('big__tool_1999');
  });

  it('searches names and descriptions, from the first page', () => {
    stores.tools.page = 5;
    stores.tools.filter({ search: 'FAX past' });
    expect(stores.tools.matching.map((row) => row.exposedName)).toEqual(['big__tool_1234']);
    expect(stores.tools.currentPage).toBe(0);

    stores.tools.filter({ search: 'tool_001' });
    expect(stores.tools.matching).toHaveLength(10);
  });

  it('filters by kind and by visibility', () => {
    stores.tools.filter({ kind: 'prompt' });
    expect(stores.tools.matching).toHaveLength(200);
    stores.tools.filter({ kind: 'all', show: 'hidden' });
    expect(stores.tools.matching.every((row) => !row.visible)).toBe(true);
    expect(stores.tools.matching).toHaveLength(1000);
  });

  it('keeps the page in range when a reload shortens the list', async () => {
    stores.tools.page = 19;
    fake.on('catalog_rows', () => many.slice(0, 150));
    await stores.tools.load();
    expect(stores.tools.currentPage).toBe(1);
    expect(stores.tools.pageRows).toHaveLength(50);
  });
});

it('loads the rows of the profile being edited after another one is chosen', async () => {
  await stores.profiles.select('work');
  expect(fake.argsOf('catalog_rows')).toEqual([{ profile: 'work' }]);
  expect(fake.argsOf('token_report')).toEqual([{ profile: 'work' }]);
  expect(fake.argsOf('profile_show')).toEqual([{ name: 'work' }]);
});

describe('labelling selected tools', () => {
  const summarise = aRow({ exposedName: 'demo__summarise', kind: 'prompt' });

  beforeEach(async () => {
    fake.on('catalog_rows', () => [readFile, deleteFile, summarise, refund]);
    await stores.tools.load();
    fake.reset();
  });

  it('selects a tool at a time, and with shift every tool shown between it and the last one clicked', () => {
    stores.tools.select('demo__refund', true);
    stores.tools.select('demo__read_file', true, true);
    expect(stores.tools.selection, 'a range skips the prompt').toEqual([
      'demo__read_file',
      'demo__delete_file',
      'demo__refund',
    ]);
    stores.tools.select('demo__delete_file', false);
    expect(stores.tools.selection).toEqual(['demo__read_file', 'demo__refund']);
    expect(stores.tools.isSelected('demo__delete_file')).toBe(false);
  });

  it('selects every tool the filters show, on every page, and keeps the selection across searches', () => {
    stores.tools.filter({ search: 'file' });
    stores.tools.selectAllShown(true);
    expect(stores.tools.allShownSelected).toBe(true);
    stores.tools.filter({ search: '' });
    expect(stores.tools.selection).toEqual(['demo__read_file', 'demo__delete_file']);
    expect(stores.tools.allShownSelected).toBe(false);
    expect(stores.tools.someShownSelected).toBe(true);
    stores.tools.selectAllShown(false);
    expect(stores.tools.selection).toEqual([]);
  });

  it('writes the edit with the selected tools through the library, then clears the selection', async () => {
    fake.on('label_edit', () => aLabelsView({ overlays: [] }));
    stores.tools.select('demo__read_file', true);
    stores.tools.select('demo__refund', true);

    expect(await stores.tools.label({ op: 'setConcern', concern: 'cost', value: 'high' })).toBe(true);

    expect(fake.argsOf('label_edit')).toEqual([
      { edit: { op: 'setConcern', concern: 'cost', value: 'high', tools: ['demo__read_file', 'demo__refund'] } },
    ]);
    expect(stores.tools.selection, 'the selection clears').toEqual([]);
    expect(fake.count('catalog_rows'), 'the rows are read again').toBe(1);
    expect(stores.labels.view.value?.overlays, 'the labels keep what the library answered').toEqual([]);
  });

  it('shows a refusal like any edit and keeps the selection', async () => {
    fake.fail('label_edit', { code: 'invalid', message: 'give the group a name', field: 'group' });
    stores.tools.select('demo__read_file', true);
    expect(await stores.tools.label({ op: 'addToGroup', group: ' ' })).toBe(false);
    expect(stores.tools.edit.error).toBe('give the group a name');
    expect(stores.tools.selection).toEqual(['demo__read_file']);
  });

  it('offers to move the selection out of the groups its tools are in, derived ones too, with how many each holds', async () => {
    const listIssues = aRow({
      exposedName: 'github__list_issues',
      groups: ['issues', 'server:github'],
      derivedGroups: ['issues'],
    });
    const searchIssues = aRow({
      exposedName: 'github__search_issues',
      groups: ['issues', 'search', 'server:github'],
      derivedGroups: ['issues'],
    });
    fake.on('catalog_rows', () => [readFile, listIssues, searchIssues]);
    await stores.tools.load();
    expect(stores.tools.selectionGroups, 'nothing selected').toEqual([]);

    stores.tools.select('github__list_issues', true);
    stores.tools.select('github__search_issues', true);
    stores.tools.select('demo__read_file', true);
    expect(stores.tools.selectionGroups, "the servers' own groups are not offered").toEqual([
      { group: 'files', tools: 1 },
      { group: 'issues', tools: 2 },
      { group: 'search', tools: 1 },
    ]);
    expect(stores.tools.isDerived('issues')).toBe(true);
  });

  it('moves the selected tools from one group to another as one edit, then clears the selection', async () => {
    fake.on('label_edit', () => aLabelsView());
    stores.tools.select('demo__read_file', true);
    stores.tools.select('demo__delete_file', true);

    expect(await stores.tools.moveToGroup('files', ' documents ')).toBe(true);

    expect(fake.argsOf('label_edit')).toEqual([
      {
        edit: {
          op: 'moveToGroup',
          from: 'files',
          to: 'documents',
          tools: ['demo__read_file', 'demo__delete_file'],
        },
      },
    ]);
    expect(stores.tools.selection).toEqual([]);
    expect(fake.count('catalog_rows'), 'the rows are read again').toBe(1);
  });

  it("offers the concerns in force for the selection's values", async () => {
    fake.on('concern_definitions', () => [{ name: 'cost', values: ['minimal', 'moderate', 'high'], ordered: true }]);
    await stores.profiles.loadConcerns();
    expect(stores.tools.concerns.map((c) => c.name)).toEqual(['cost']);
  });
});
