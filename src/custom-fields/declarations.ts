/**
 * The host's custom field declarations (the `customFields` option), checked once when the
 * router is built: TEC Pro's "Additional Fields", each a key, a label, a type and, for choice
 * types, its options. Declarations live in code or configuration, never in the database: a
 * deployment may add, retype or remove one without a migration (values are kept by key,
 * storage/custom-values.ts).
 */
import type { PostType } from '../storage/types.js'

export const CUSTOM_FIELD_TYPES = ['text', 'textarea', 'url', 'email', 'number', 'date', 'checkbox', 'dropdown', 'radio'] as const
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number]

/** The types whose value must be one of `options`. */
export const CHOICE_TYPES: readonly CustomFieldType[] = ['dropdown', 'radio']

/** One field as the host declares it. */
export interface CustomFieldDeclaration {
  /** The wire key (`custom_fields.ticket_url`): letters, digits, `_` and `-`, at most 64. */
  key: string
  /** Shown beside the value (`custom_fields.ticket_url.label`). */
  label: string
  type: CustomFieldType
  /** dropdown and radio: the values it takes. */
  options?: string[]
  /** A create without a value is a 400, and an update may not clear it. Default false. */
  required?: boolean
  /** Which records have it: `event` (the default), `venue`, `organizer`, or a list of them. */
  for?: PostType | PostType[]
  /**
   * Write-only: written like any field, never shown in reads, feeds or webhooks and not a list
   * filter. For what an integration keeps beside a record and reads from the storage itself
   * (the CalDAV face's iCalendar properties the model does not hold). Text values are stored
   * as sent: no HTML filter (they are never shown as HTML). Default false.
   */
  hidden?: boolean
}

/** A declaration checked and filled in. */
export interface CustomField {
  key: string
  label: string
  type: CustomFieldType
  options: readonly string[]
  required: boolean
  for: readonly PostType[]
  hidden: boolean
}

const KEY = /^[A-Za-z0-9_-]{1,64}$/
const KINDS: readonly PostType[] = ['event', 'venue', 'organizer']

/**
 * The declarations checked: a TypeError naming the first bad one (the router refuses to start,
 * as with its other options).
 *
 * @example
 * resolveCustomFields([{ key: 'ticket_url', label: 'Tickets', type: 'url' }])
 * // [{ key: 'ticket_url', label: 'Tickets', type: 'url', options: [], required: false, for: ['event'], hidden: false }]
 */
export function resolveCustomFields(input: unknown): CustomField[] {
  if (input === undefined) return []
  const bad = (where: string, what: string) => new TypeError(`calendar-events-router: customFields${where} ${what}`)
  if (!Array.isArray(input)) throw bad('', 'must be an array of { key, label, type, options?, required?, for? }')
  const seen = new Set<string>()
  return input.map((d: unknown, i): CustomField => {
    const at = `[${i}]`
    if (typeof d !== 'object' || d === null || Array.isArray(d)) throw bad(at, 'must be an object { key, label, type, ... }')
    const o = d as Record<string, unknown>
    const unknownKey = Object.keys(o).find((k) => !['key', 'label', 'type', 'options', 'required', 'for', 'hidden'].includes(k))
    if (unknownKey !== undefined) throw bad(at, `has an unknown property "${unknownKey}"`)
    if (typeof o.key !== 'string' || !KEY.test(o.key)) throw bad(`${at}.key`, 'must be 1-64 letters, digits, _ or -')
    if (seen.has(o.key)) throw bad(`${at}.key`, `"${o.key}" is declared twice`)
    seen.add(o.key)
    if (typeof o.label !== 'string' || !o.label.trim()) throw bad(`${at}.label`, 'must be a non-empty string')
    if (typeof o.type !== 'string' || !(CUSTOM_FIELD_TYPES as readonly string[]).includes(o.type))
      throw bad(`${at}.type`, `must be one of ${CUSTOM_FIELD_TYPES.join(', ')}`)
    const type = o.type as CustomFieldType
    let options: string[] = []
    if (CHOICE_TYPES.includes(type)) {
      const ok = Array.isArray(o.options) && o.options.length > 0 && o.options.every((x) => typeof x === 'string' && x !== '')
      if (!ok) throw bad(`${at}.options`, `must be a non-empty list of non-empty strings for a ${type} field`)
      options = [...new Set(o.options as string[])]
    } else if (o.options !== undefined) throw bad(`${at}.options`, 'is only for dropdown and radio fields')
    if (o.required !== undefined && typeof o.required !== 'boolean') throw bad(`${at}.required`, 'must be a boolean')
    if (o.hidden !== undefined && typeof o.hidden !== 'boolean') throw bad(`${at}.hidden`, 'must be a boolean')
    const kinds = o.for === undefined ? ['event'] : Array.isArray(o.for) ? o.for : [o.for]
    if (!kinds.length || !kinds.every((k) => (KINDS as readonly unknown[]).includes(k)))
      throw bad(`${at}.for`, 'must be event, venue, organizer or a list of them')
    return {
      key: o.key,
      label: o.label,
      type,
      options,
      required: o.required === true,
      for: [...new Set(kinds as PostType[])],
      hidden: o.hidden === true,
    }
  })
}

/**
 * The fields a kind of record shows, in declaration order (hidden ones are written only).
 *
 * @example fieldsFor(options.customFields, 'venue')
 */
export function fieldsFor(fields: readonly CustomField[], kind: PostType): CustomField[] {
  return fields.filter((f) => f.for.includes(kind) && !f.hidden)
}
