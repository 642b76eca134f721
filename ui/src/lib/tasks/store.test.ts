import { beforeEach, describe, expect, it } from 'vitest';
import { aTask, type FakeBackend } from '../backend/fake';
import { fakeApp, NOW } from '../fakeApp';
import type { Stores } from '../stores';
import { canCancel, canRetry, PAGE_SIZE, toTaskFilter, type TaskFilters } from './store.svelte';

let fake: FakeBackend;
let stores: Stores;

beforeEach(() => {
  ({ fake, stores } = fakeApp());
});

const NO_FILTERS: TaskFilters = {
  status: [],
  since: 'any',
  from: '',
  to: '',
  servers: [],
  methods: [],
  orderBy: 'lastUpdatedAt',
  ascending: false,
};

describe('the filters as a TaskFilter', () => {
  it('passes statuses, servers, methods and the order', () => {
    const filter = toTaskFilter(
      {
        ...NO_FILTERS,
        status: ['working', 'failed'],
        servers: ['github'],
        methods: ['tools/call'],
        orderBy: 'createdAt',
        ascending: true,
      },
      NOW,
    );
    expect(filter).toEqual({
      status: ['working', 'failed'],
      servers: ['github'],
      methods: ['tools/call'],
      orderBy: 'createdAt',
      ascending: true,
    });
  });

  it('asks for the last hour as an age', () => {
    expect(toTaskFilter({ ...NO_FILTERS, since: '1h' }, NOW).since).toBe('1h');
    expect(toTaskFilter(NO_FILTERS, NOW).since).toBeUndefined();
  });

  it('takes today and yesterday from local midnight', () => {
    const today = toTaskFilter({ ...NO_FILTERS, since: 'today' }, NOW);
    expect(today.since).toBe(new Date(2026, 4, 1).toISOString());
    expect(today.until).toBeUndefined();

    const yesterday = toTaskFilter({ ...NO_FILTERS, since: 'yesterday' }, NOW);
    expect(yesterday.since).toBe(new Date(2026, 3, 30).toISOString());
    expect(yesterday.until).toBe(new Date(2026, 4, 1).toISOString());
  });

  it('turns a custom range of local times into ISO timestamps, leaving out an empty end', () => {
    const range = toTaskFilter({ ...NO_FILTERS, since: 'custom', from: '2026-04-20T08:30', to: '' }, NOW);
    expect(range.since).toBe(new Date(2026, 3, 20, 8, 30).toISOString());
    expect(range.until).toBeUndefined();
  });
});

describe('the page', () => {
  it('loads the first page with the filters, then the next with the cursor', async () => {
    stores.tasks.filters.status = ['failed'];
    fake.on('tasks_list', ({ filter }) =>
      filter.cursor
        ? { tasks: [aTask({ taskId: 'st-2' })], nextCursor: null }
        : { tasks: [aTask({ taskId: 'st-1' })], nextCursor: 'c1' },
    );
    await stores.tasks.load();
    expect(fake.argsOf('tasks_list')[0].filter).toEqual({
      status: ['failed'],
      servers: [],
      methods: [],
      orderBy: 'lastUpdatedAt',
      ascending: false,
      limit: PAGE_SIZE,
    });

    await stores.tasks.more();
    expect(fake.argsOf('tasks_list')[1].filter).toMatchObject({ status: ['failed'], cursor: 'c1' });
    expect(stores.tasks.page.value.tasks.map((task) => task.taskId)).toEqual(['st-1', 'st-2']);
    expect(stores.tasks.page.value.nextCursor).toBeNull();
  });

  it('reloads as many rows as are shown after a change in the ledger', async () => {
    const tasks = Array.from({ length: 120 }, (_, i) => aTask({ taskId: `st-${i}` }));
    fake.on('tasks_list', () => ({ tasks, nextCursor: 'next' }));
    await stores.tasks.load();
    await stores.tasks.refresh();
    expect(fake.argsOf('tasks_list')[1].filter.limit).toBe(120);
    expect(fake.argsOf('tasks_list')[1].filter.cursor).toBeUndefined();
  });

  it('keeps the rows shown when the ledger cannot be read', async () => {
    fake.on('tasks_list', () => ({ tasks: [aTask({ taskId: 'st-1' })], nextCursor: null }));
    await stores.tasks.load();
    fake.fail('tasks_list', { code: 'io', message: 'tasks.db is locked; try again' });
    await stores.tasks.load();
    expect(stores.tasks.page.error).toBe('tasks.db is locked; try again');
    expect(stores.tasks.page.value.tasks).toHaveLength(1);
  });
});

describe('retry and cancel', () => {
  const failed = aTask({
    taskId: 'st-1',
    status: 'failed',
    _meta: {
      'dev.mcp-sieve/kind': 'call',
      'dev.mcp-sieve/server': 'demo',
      'dev.mcp-sieve/method': 'tools/call',
      'dev.mcp-sieve/profile': 'work',
    },
  });

  it('offers retry on failed and cancelled entries, cancel on unfinished ones', () => {
    expect(canRetry(failed)).toBe(true);
    expect(canRetry(aTask({ taskId: 'a', status: 'cancelled' }))).toBe(true);
    expect(canRetry(aTask({ taskId: 'a', status: 'completed' }))).toBe(false);
    expect(canCancel(aTask({ taskId: 'a', status: 'working' }))).toBe(true);
    expect(canCancel(aTask({ taskId: 'a', status: 'input_required' }))).toBe(true);
    expect(canCancel(failed)).toBe(false);
  });

  it('retries under the profile the entry ran under, says what happened, and reloads', async () => {
    fake.on('task_retry', () => ({
      record: aTask({ taskId: 'st-2', status: 'failed' }),
      error: { code: 'upstream', message: 'server "demo" is down' },
    }));
    await stores.tasks.retry(failed);
    expect(fake.argsOf('task_retry')).toEqual([{ id: 'st-1', force: false, profile: 'work' }]);
    expect(stores.tasks.notice).toBe('Ran st-1 again as st-2; it failed: server "demo" is down');
    expect(fake.count('tasks_list')).toBe(1);
  });

  it('retries an entry without a profile under the profile being edited', async () => {
    fake.on('task_retry', () => ({ record: aTask({ taskId: 'st-3' }), answer: {} }));
    await stores.tasks.retry(aTask({ taskId: 'st-1', status: 'completed' }), true);
    expect(fake.argsOf('task_retry')).toEqual([{ id: 'st-1', force: true, profile: 'default' }]);
    expect(stores.tasks.notice).toBe('Ran st-1 again as st-3.');
  });

  it('cancels, and keeps a refusal as the error', async () => {
    fake.on('task_cancel', () => null);
    await stores.tasks.cancel(aTask({ taskId: 'st-9', status: 'working' }));
    expect(fake.argsOf('task_cancel')).toEqual([{ id: 'st-9' }]);
    expect(stores.tasks.action.error).toBeNull();

    fake.fail('task_cancel', { code: 'upstream', message: 'server "demo" is down; it cannot cancel st-9' });
    expect(await stores.tasks.cancel(aTask({ taskId: 'st-9', status: 'working' }))).toBe(false);
    expect(stores.tasks.action.error).toBe('server "demo" is down; it cannot cancel st-9');
  });

  it('shows one entry in detail, and keeps it current on reload', async () => {
    fake.on('task_show', ({ id }) => ({ ...aTask({ taskId: id }), params: { name: 'run_job' }, retryChain: ['st-0'] }));
    await stores.tasks.show('st-1');
    expect(stores.tasks.detail.value?.retryChain).toEqual(['st-0']);
    await stores.tasks.refresh();
    expect(fake.argsOf('task_show')).toEqual([{ id: 'st-1' }, { id: 'st-1' }]);
  });
});
