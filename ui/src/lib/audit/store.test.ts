import { beforeEach, describe, expect, it } from 'vitest';
import type { AuditCall } from '../backend';
import type { FakeBackend } from '../backend/fake';
import { fakeApp, NOW } from '../fakeApp';
import type { Stores } from '../stores';
import { PAGE_SIZE, toAuditFilter, unfiltered, type AuditFilters } from './store.svelte';

let fake: FakeBackend;
let stores: Stores;

beforeEach(() => {
  ({ fake, stores } = fakeApp());
});

const NO_FILTERS: AuditFilters = { status: [], since: 'any', from: '', to: '', servers: [] };

function aCall(overrides: Partial<AuditCall> = {}): AuditCall {
  return {
    id: 1,
    at: '2026-05-01T10:00:00.000Z',
    who: 'claude-code 1.0 (stdio)',
    profile: 'default',
    server: 'demo',
    tool: 'demo__echo',
    status: 'ok',
    durationMs: 12,
    ...overrides,
  };
}

describe('the filters as an AuditFilter', () => {
  it('passes statuses and servers, and leaves out the time when it is any', () => {
    expect(toAuditFilter({ ...NO_FILTERS, status: ['error', 'refused'], servers: ['github'] }, NOW)).toEqual({
      status: ['error', 'refused'],
      servers: ['github'],
    });
  });

  it('asks for the last hour as an age, today and yesterday from local midnight', () => {
    expect(toAuditFilter({ ...NO_FILTERS, since: '1h' }, NOW).since).toBe('1h');
    expect(toAuditFilter({ ...NO_FILTERS, since: 'today' }, NOW)).toMatchObject({
      since: new Date(2026, 4, 1).toISOString(),
    });
    const yesterday = toAuditFilter({ ...NO_FILTERS, since: 'yesterday' }, NOW);
    expect(yesterday.since).toBe(new Date(2026, 3, 30).toISOString());
    expect(yesterday.until).toBe(new Date(2026, 4, 1).toISOString());
  });

  it('turns a custom range of local times into ISO timestamps, leaving out an empty end', () => {
    const range = toAuditFilter({ ...NO_FILTERS, since: 'custom', from: '', to: '2026-04-20T08:30' }, NOW);
    expect(range.since).toBeUndefined();
    expect(range.until).toBe(new Date(2026, 3, 20, 8, 30).toISOString());
  });

  it('knows when nothing narrows the list', () => {
    expect(unfiltered(NO_FILTERS)).toBe(true);
    expect(unfiltered({ ...NO_FILTERS, status: ['ok'] })).toBe(false);
    expect(unfiltered({ ...NO_FILTERS, servers: ['demo'] })).toBe(false);
    expect(unfiltered({ ...NO_FILTERS, since: '1h' })).toBe(false);
  });
});

describe('the page', () => {
  it('loads the first page with the filters, then the next with the cursor', async () => {
    stores.audit.filters.status = ['error'];
    stores.audit.filters.servers = ['demo'];
    fake.on('audit_list', ({ filter }) =>
      filter.cursor
        ? { calls: [aCall({ id: 1, status: 'error' })], nextCursor: null }
        : { calls: [aCall({ id: 2, status: 'error' })], nextCursor: 'c1' },
    );
    await stores.audit.load();
    expect(fake.argsOf('audit_list')[0].filter).toEqual({ status: ['error'], servers: ['demo'], limit: PAGE_SIZE });

    await stores.audit.more();
    expect(fake.argsOf('audit_list')[1].filter).toMatchObject({ status: ['error'], cursor: 'c1', limit: PAGE_SIZE });
    expect(stores.audit.page.value.calls.map((call) => call.id)).toEqual([2, 1]);
    expect(stores.audit.page.value.nextCursor).toBeNull();
    expect(await stores.audit.more()).toBe(false);
    expect(fake.count('audit_list')).toBe(2);
  });

  it('keeps the arguments of a call that has them', async () => {
    fake.on('audit_list', () => ({
      calls: [aCall({ id: 3, arguments: { text: 'hello' } }), aCall({ id: 4 })],
      nextCursor: null,
    }));
    await stores.audit.load();
    expect(stores.audit.page.value.calls[0].arguments).toEqual({ text: 'hello' });
    expect('arguments' in stores.audit.page.value.calls[1]).toBe(false);
  });

  it('reloads as many rows as are shown after a change in the ledger', async () => {
    const calls = Array.from({ length: 120 }, (_, i) => aCall({ id: 200 - i }));
    fake.on('audit_list', () => ({ calls, nextCursor: 'next' }));
    await stores.audit.load();
    await stores.audit.refresh();
    expect(fake.argsOf('audit_list')[1].filter.limit).toBe(120);
    expect(fake.argsOf('audit_list')[1].filter.cursor).toBeUndefined();
  });

  it('keeps the rows shown when the audit cannot be read, and says why', async () => {
    fake.on('audit_list', () => ({ calls: [aCall()], nextCursor: null }));
    await stores.audit.load();
    fake.fail('audit_list', { code: 'invalid', message: '"yesterday" is not a time', field: 'since' });
    expect(await stores.audit.load()).toBe(false);
    expect(stores.audit.page.error).toBe('"yesterday" is not a time');
    expect(stores.audit.page.value.calls).toHaveLength(1);
  });
});
