import { beforeEach, expect, it, vi } from 'vitest';
import type { FakeBackend } from './backend/fake';
import { fakeApp } from './fakeApp';
import { coalesce, Live } from './live';
import type { Stores } from './stores';

let fake: FakeBackend;
let stores: Stores;
let live: Live;

beforeEach(() => {
  ({ fake, stores } = fakeApp());
  live = new Live(stores);
});

const commands = () => [...new Set(fake.calls.map((call) => call.command))].sort();

it('reloads servers, rows, labels, meter and quarantine on catalog, status and approvals changes', async () => {
  for (const what of ['catalog', 'status', 'approvals'] as const) {
    fake.reset();
    await live.apply({ what });
    expect(commands(), what).toEqual(['catalog_rows', 'labels_view', 'quarantine_list', 'servers_list', 'token_report']);
  }
});

it('also reloads the concerns, the profile list (which is active) and the settings on a config change', async () => {
  await live.apply({ what: 'config' });
  expect(commands()).toEqual([
    'catalog_rows',
    'concern_definitions',
    'labels_view',
    'profiles_list',
    'quarantine_list',
    'servers_list',
    'settings_show',
    'token_report',
  ]);
});

it('reloads the profile being edited when it changed, and the list either way', async () => {
  await live.apply({ what: 'profile', name: 'work' });
  expect(commands()).toEqual(['profiles_list']);

  fake.reset();
  await live.apply({ what: 'profile', name: 'default' });
  expect(commands()).toEqual(['catalog_rows', 'host_snippet', 'profile_show', 'profiles_list', 'token_report']);
  expect(fake.argsOf('profile_show')).toEqual([{ name: 'default' }]);
});

it('reloads the task page and the audit on a tasks change, and nothing else', async () => {
  await live.apply({ what: 'tasks' });
  expect(commands()).toEqual(['audit_list', 'tasks_list']);
});

it("follows the shell's events once started", async () => {
  const stop = await live.start();
  fake.emit({ what: 'tasks' });
  await vi.waitFor(() => expect(fake.count('tasks_list')).toBe(1));
  stop();
  fake.emit({ what: 'tasks' });
  await Promise.resolve();
  expect(fake.count('tasks_list')).toBe(1);
});

it('makes one more run, not one per request, for requests during a run', async () => {
  let runs = 0;
  let finish: () => void = () => {};
  const reload = coalesce(() => {
    runs++;
    return new Promise<void>((resolve) => (finish = resolve));
  });
  const first = reload();
  reload();
  reload();
  const last = reload();
  finish();
  await vi.waitFor(() => expect(runs).toBe(2));
  finish();
  await Promise.all([first, last]);
  expect(runs).toBe(2);
});
