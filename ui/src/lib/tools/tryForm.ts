// The "Try" form of a tool's row: fields built from its input schema, and
// the arguments they make. Kept apart from the component so it is tested
// on its own.

import type { JsonSchema } from '../backend';

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'json';

export interface Field {
  name: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  /** A `choice` field's values, as the schema's `enum` gives them. */
  options?: unknown[];
}

/** A field's input: text for most, a flag for a boolean. */
export type FieldValue = string | boolean;

function kindOf(schema: JsonSchema): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return 'choice';
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  if (types.length !== 1) return 'json';
  switch (types[0]) {
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
      return types[0];
    default:
      return 'json';
  }
}

/** The fields of `schema`, required ones first, each in schema order. */
export function fieldsOf(schema: JsonSchema | undefined): Field[] {
  const properties = schema?.properties ?? {};
  const required = new Set(schema?.required ?? []);
  const fields = Object.entries(properties).map(([name, property]) => ({
    name,
    kind: kindOf(property),
    required: required.has(name),
    description: property.description,
    options: Array.isArray(property.enum) ? property.enum : undefined,
  }));
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)];
}

/** The value a field starts with: unset text, or false for a flag. */
export function initialValue(field: Field): FieldValue {
  return field.kind === 'boolean' ? false : '';
}

/**
 * The arguments `values` make, or the first problem, naming its field. An
 * empty optional field is left out; a flag is always sent.
 */
export function argumentsOf(
  fields: Field[],
  values: Record<string, FieldValue>,
): { ok: true; arguments: Record<string, unknown> } | { ok: false; error: string } {
  const args: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.name] ?? initialValue(field);
    if (field.kind === 'boolean') {
      args[field.name] = value === true;
      continue;
    }
    const text = String(value).trim();
    if (text === '') {
      if (field.required) return { ok: false, error: `${field.name} is required` };
      continue;
    }
    switch (field.kind) {
      case 'string':
        args[field.name] = String(value);
        break;
      case 'number':
      case 'integer': {
        const number = Number(text);
        if (!Number.isFinite(number) || (field.kind === 'integer' && !Number.isInteger(number))) {
          return { ok: false, error: `${field.name} must be ${field.kind === 'integer' ? 'a whole number' : 'a number'}` };
        }
        args[field.name] = number;
        break;
      }
      case 'choice': {
        const option = field.options?.find((o) => String(o) === text);
        if (option === undefined) return { ok: false, error: `${field.name} must be one of its choices` };
        args[field.name] = option;
        break;
      }
      case 'json':
        try {
          args[field.name] = JSON.parse(text);
        } catch {
          return { ok: false, error: `${field.name} must be JSON, e.g. {"key": "value"} or [1, 2]` };
        }
        break;
    }
  }
  return { ok: true, arguments: args };
}
