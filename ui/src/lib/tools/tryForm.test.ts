import { describe, expect, it } from 'vitest';
import { argumentsOf, fieldsOf } from './tryForm';

const schema = {
  type: 'object',
  properties: {
    note: { type: 'string', description: 'Free text' },
    id: { type: 'integer' },
    ratio: { type: 'number' },
    force: { type: 'boolean' },
    state: { type: 'string', enum: ['open', 'closed'] },
    labels: { type: 'array' },
    maybe: { type: ['string', 'null'] },
  },
  required: ['id', 'state'],
};

describe('the Try form', () => {
  it('makes a field per property, required ones first, with the right kind', () => {
    const fields = fieldsOf(schema);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['id', 'integer', true],
      ['state', 'choice', true],
      ['note', 'string', false],
      ['ratio', 'number', false],
      ['force', 'boolean', false],
      ['labels', 'json', false],
      ['maybe', 'string', false],
    ]);
    expect(fieldsOf(undefined)).toEqual([]);
  });

  it('turns the inputs into arguments, leaving out empty optional ones', () => {
    const fields = fieldsOf(schema);
    expect(argumentsOf(fields, { id: '7', state: 'closed', labels: '["a"]', force: true, note: '' })).toEqual({
      ok: true,
      arguments: { id: 7, state: 'closed', force: true, labels: ['a'] },
    });
  });

  it('names the field of the first problem', () => {
    const fields = fieldsOf(schema);
    expect(argumentsOf(fields, { state: 'open' })).toEqual({ ok: false, error: 'id is required' });
    expect(argumentsOf(fields, { id: '1.5', state: 'open' })).toEqual({ ok: false, error: 'id must be a whole number' });
    expect(argumentsOf(fields, { id: '1', state: 'maybe' })).toEqual({
      ok: false,
      error: 'state must be one of its choices',
    });
    expect(argumentsOf(fields, { id: '1', state: 'open', labels: '[' })).toMatchObject({ ok: false });
  });
});
