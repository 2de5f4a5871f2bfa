/**
 * The `custom_fields` parameters, built from the host's declarations: the write parameter of
 * events, venues and organizers and the event list filter. Each validates with the declarations
 * (src/custom-fields/values.ts), reports a failure under the member's name
 * (`custom_fields[ticket_url]`, rest_invalid_param), and shows discovery, /doc and generated
 * clients one typed property per declared field.
 */
import * as v from 'valibot'
import type { CustomField } from '../custom-fields/declarations.js'
import { readFilter, readWrite, type KeyFilter } from '../custom-fields/values.js'
import type { CustomValue } from '../storage/custom-values.js'
import type { PostType } from '../storage/types.js'
import { failure, failureAt } from './failure.js'
import type { ParamDef } from './operation.js'
import { wire, type JsonSchema } from './wire.js'

/**
 * One field's value as JSON Schema.
 *
 * @example valueSchema({ type: 'url', ... }) // { type: 'string', format: 'uri' }
 */
export function valueSchema(f: CustomField): JsonSchema {
  switch (f.type) {
    case 'url':
      return { type: 'string', format: 'uri' }
    case 'email':
      return { type: 'string', format: 'email' }
    case 'number':
      return { type: 'number' }
    case 'date':
      return { type: 'string', format: 'date' }
    case 'checkbox':
      return { type: 'boolean' }
    case 'dropdown':
    case 'radio':
      return { type: 'string', enum: [...f.options] }
    default:
      return { type: 'string' }
  }
}

const described = (f: CustomField, schema: JsonSchema): JsonSchema => ({
  ...schema,
  title: f.label,
  description: `${f.label} (${f.type}).`,
})

/** What a read shows under `custom_fields`: `{ key: { label, value } }`, or `[]` when the record has none. */
export function shownSchema(fields: readonly CustomField[]): JsonSchema {
  const properties = Object.fromEntries(
    fields.map((f) => [
      f.key,
      described(f, {
        type: 'object',
        properties: { label: { type: 'string' }, value: valueSchema(f) },
        required: ['label', 'value'],
        additionalProperties: false,
      }),
    ]),
  )
  return {
    description: "The record's custom field values ({ key: { label, value } }, TEC's shape); [] when it has none.",
    anyOf: [
      { type: 'object', properties, additionalProperties: false },
      { type: 'array', maxItems: 0, items: {} },
    ],
  }
}

/** The values a write sends, by key (null: clear). */
export type WriteValues = Record<string, CustomValue | null>

/** A parameter definition whose validated output is `T`. */
export type CustomParam<T> = ParamDef & { schema: v.GenericSchema<unknown, T> }

/** A schema that reads its input with `read` and outputs `pick` of the result, or fails naming the key at fault. */
function checked<R extends object, T>(read: (x: unknown) => R | { key: string | null; error: string }, pick: (r: R) => T) {
  return v.pipe(
    v.unknown(),
    v.transform(read),
    v.rawCheck(({ dataset, addIssue }) => {
      const r = dataset.value as R | { key: string | null; error: string }
      if ('error' in r) addIssue({ message: fail(r.key, r.error) })
    }),
    v.transform((r) => pick(r as R)),
  ) as v.GenericSchema<unknown, T>
}

/** A failure under the member's name, or the parameter's own when no key is at fault. */
const fail = (key: string | null, error: string) =>
  key === null ? failure('rest_invalid_param', `{name} ${error}`) : failureAt(`[${key}]`, 'rest_invalid_param', `{name} ${error}`)

/**
 * The write parameter of a record type: `{ key: value }` (null clears), or a read's
 * `{ key: { label, value } }` sent back. Absent when the type has no declared field: the key is
 * then ignored like any unknown one.
 */
export function customFieldsWriteParam(fields: readonly CustomField[], kind: PostType, create: boolean): CustomParam<WriteValues> | null {
  const own = fields.filter((f) => f.for.includes(kind))
  if (!own.length) return null
  const schema = checked(
    (x) => readWrite(own, x, create),
    (r) => r.values,
  )
  const properties = Object.fromEntries(
    own.map((f) => {
      const value = valueSchema(f)
      const asRead = { type: 'object', properties: { label: { type: 'string' }, value }, required: ['value'] }
      return [f.key, described(f, { anyOf: [value, asRead, { type: 'null' }] })]
    }),
  )
  const required = create ? own.filter((f) => f.required).map((f) => f.key) : []
  return {
    // A create that sends no custom_fields still has its required ones checked.
    ...(required.length ? { default: {} } : {}),
    schema: wire(schema, { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false }),
    description:
      'Custom field values by key ({ "key": value }); a key not sent keeps its value, null clears it. ' +
      'A read\'s { "key": { "label", "value" } } is accepted too.',
  }
}

/**
 * The event list filter `custom_fields[key]=value`: exact match, several values of one key ORed
 * (`custom_fields[key][]=a&custom_fields[key][]=b`), several keys ANDed. Absent when events have
 * no declared field.
 */
export function customFieldsFilterParam(fields: readonly CustomField[]): CustomParam<KeyFilter[]> | null {
  // A hidden field is never a filter: a list would tell its values apart.
  const own = fields.filter((f) => f.for.includes('event') && !f.hidden)
  if (!own.length) return null
  const schema = checked(
    (x) => readFilter(own, x),
    (r) => r.filters,
  )
  const properties = Object.fromEntries(
    own.map((f) => [f.key, described(f, { anyOf: [valueSchema(f), { type: 'array', items: valueSchema(f) }] })]),
  )
  return {
    schema: wire(schema, { type: 'object', properties, additionalProperties: false }),
    description:
      'Events whose custom field equals the value: custom_fields[key]=value; several values of one key ' +
      '(custom_fields[key][]=a&custom_fields[key][]=b) match any, several keys must all match.',
    in: 'query',
  }
}

/** `{ custom_fields }` to spread into a write operation's parameters, or nothing when the type has no field. */
export function customWriteParams(
  fields: readonly CustomField[],
  kind: PostType,
  create: boolean,
): { custom_fields?: CustomParam<WriteValues> } {
  const param = customFieldsWriteParam(fields, kind, create)
  return param ? { custom_fields: param } : {}
}

/** `{ custom_fields }` to spread into the event list's parameters, or nothing when events have no field. */
export function customFilterParams(fields: readonly CustomField[]): { custom_fields?: CustomParam<KeyFilter[]> } {
  const param = customFieldsFilterParam(fields)
  return param ? { custom_fields: param } : {}
}
