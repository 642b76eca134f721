import { beforeEach, describe, expect, it } from 'vitest';
import { aLabelsView, type FakeBackend } from '../backend/fake';
import { fakeApp } from '../fakeApp';
import type { Stores } from '../stores';

let fake: FakeBackend;
let stores: Stores;

const issues = { group: 'issues', tools: 28 };
const costHigh = {
  index: 0,
  overlay: { match: 'github__list_issues', concerns: { cost: 'high' } },
  matches: 1,
  adds: ['cost=high'],
  removes: [],
  text: [],
};

beforeEach(async () => {
  ({ fake, stores } = fakeApp());
  fake.on('labels_view', () => aLabelsView({ derived: [issues], overlays: [costHigh] }));
  await stores.labels.load();
  fake.reset();
});

it('reads the derived groups, the overlays as rules and the concerns in force', () => {
  const view = stores.labels.view.value;
  expect(view?.derived).toEqual([issues]);
  expect(view?.overlays[0].overlay.match).toBe('github__list_issues');
  expect(view?.concerns.map((c) => c.name)).toEqual(['security', 'cost']);
  expect(view?.builtinConcerns).toBe(true);
});

describe('an edit', () => {
  it('renames a group with the new name trimmed, and keeps the labels it answers with', async () => {
    fake.on('label_edit', () => aLabelsView({ renames: { issues: 'tickets' } }));
    expect(await stores.labels.renameGroup('issues', ' tickets ')).toBe(true);
    expect(fake.argsOf('label_edit')).toEqual([{ edit: { op: 'renameGroup', from: 'issues', to: 'tickets' } }]);
    expect(stores.labels.view.value?.renames).toEqual({ issues: 'tickets' });
  });

  it('removes an overlay by its index, and defines and removes concerns', async () => {
    fake.on('label_edit', () => aLabelsView());
    await stores.labels.removeOverlay(0);
    const speed = { name: 'speed', values: ['fast', 'slow'], ordered: true };
    await stores.labels.defineConcern(speed);
    await stores.labels.removeConcern('cost');
    expect(fake.argsOf('label_edit').map((args) => args.edit)).toEqual([
      { op: 'removeOverlay', index: 0 },
      { op: 'defineConcern', concern: speed },
      { op: 'removeConcern', name: 'cost' },
    ]);
  });

  it('replaces a rule with its edit, sending the rule as it was seen so that a stale edit is refused', async () => {
    const edited = { match: 'github__*issue*', groups: ['tickets'], concerns: { cost: 'high' } };
    fake.on('label_edit', () => aLabelsView({ overlays: [{ ...costHigh, overlay: edited, matches: 28 }] }));

    expect(await stores.labels.replaceOverlay(0, costHigh.overlay, edited)).toBe(true);

    expect(fake.argsOf('label_edit')).toEqual([
      { edit: { op: 'replaceOverlay', index: 0, was: costHigh.overlay, overlay: edited } },
    ]);
    expect(stores.labels.view.value?.overlays[0].matches).toBe(28);
  });

  it("keeps a rule's refusal for its form, apart from the screen's other edits", async () => {
    const refusal = 'overlay number 1 changed since it was read (it now matches "*"); nothing was written';
    fake.fail('label_edit', { code: 'not_found', message: refusal });
    const before = stores.labels.view.value;

    expect(await stores.labels.replaceOverlay(0, costHigh.overlay, { match: 'x' })).toBe(false);

    expect(stores.labels.ruleEdit.error).toBe(refusal);
    expect(stores.labels.edit.error, "the screen's own error line stays empty").toBeNull();
    expect(stores.labels.view.value).toBe(before);
  });

  it('switches derivation off through settings.deriveGroups', async () => {
    fake.on('labels_set_derive_groups', ({ on }) => aLabelsView({ deriveGroups: on }));
    expect(await stores.labels.setDeriveGroups(false)).toBe(true);
    expect(fake.argsOf('labels_set_derive_groups')).toEqual([{ on: false }]);
    expect(stores.labels.view.value?.deriveGroups).toBe(false);
  });

  it("keeps the library's refusal as a sentence and what it showed", async () => {
    fake.fail('label_edit', {
      code: 'invalid',
      message: 'the last concern cannot be removed: with none declared, the built-in security and cost come back',
      field: 'name',
    });
    const before = stores.labels.view.value;
    expect(await stores.labels.removeConcern('security')).toBe(false);
    expect(stores.labels.edit.error).toContain('the last concern cannot be removed');
    expect(stores.labels.view.value).toBe(before);
  });
});
