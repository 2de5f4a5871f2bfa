/**
 * Custom field values against their declarations: what a write may store (`checkValue`,
 * `readWrite`), what a list filter compares (`readFilter`), how an update's values merge into the
 * stored ones (`mergeValues`) and what a read shows (`shownValues`, TEC's wire shape). Pure: the
 * schemas (src/schemas/custom-fields.ts), the resources and the representation call it.
 */
import { hasControl, httpUrlText } from '../http/url.js'
import { customValueText, type CustomValue, type CustomValues } from '../storage/custom-values.js'
import type { CustomField } from './declarations.js'

/** Longest text of a `text` field (one line, like a title) and of a `textarea` (like an excerpt). */
const MAX_TEXT = 1000
const MAX_TEXTAREA = 65535

const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/
const NUMBER = /^\s*-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** A checked value (null: clear it), or why it is refused (a sentence after the parameter's name). */
export type Checked = { value: CustomValue | null } | { error: string }

/**
 * One value against its field: `null` and `""` clear; form bodies carry numbers and checkboxes
 * as text, which is read as such.
 *
 * @example checkValue(ticketUrl, 'https://tickets.example/42') // { value: 'https://tickets.example/42' }
 * @example checkValue(capacity, '120') // { value: 120 }
 * @example checkValue(ticketUrl, 'javascript:alert(1)') // { error: 'is not an http or https URL.' }
 */
export function checkValue(field: CustomField, raw: unknown): Checked {
  if (raw === null || raw === '') return { value: null }
  switch (field.type) {
    case 'text':
    case 'textarea': {
      const max = field.type === 'text' ? MAX_TEXT : MAX_TEXTAREA
      if (typeof raw !== 'string') return { error: 'is not of type string.' }
      return raw.length <= max ? { value: raw } : { error: `is longer than ${max} characters.` }
    }
    case 'url': {
      // Stored serialized, as every URL field is (schemas/primitives.ts).
      if (typeof raw === 'string' && hasControl(raw))
        return { error: 'holds a control character (CR, LF, tab, NUL or another); a URL cannot.' }
      const url = typeof raw === 'string' ? httpUrlText(raw) : null
      return url !== null ? { value: url } : { error: 'is not an http or https URL.' }
    }
    case 'email':
      return typeof raw === 'string' && raw.length <= 254 && EMAIL.test(raw) ? { value: raw } : { error: 'is not an email address.' }
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && NUMBER.test(raw) ? Number(raw) : NaN
      return Number.isFinite(n) ? { value: n } : { error: 'is not a number.' }
    }
    case 'date': {
      const m = typeof raw === 'string' ? DATE.exec(raw) : null
      const ok = m !== null && new Date(`${raw as string}T00:00:00Z`).toISOString().slice(0, 10) === raw
      return ok ? { value: raw } : { error: 'is not a date (YYYY-MM-DD).' }
    }
    case 'checkbox':
      if (raw === true || raw === 'true' || raw === '1' || raw === 1) return { value: true }
      if (raw === false || raw === 'false' || raw === '0' || raw === 0) return { value: false }
      return { error: 'is not of type boolean.' }
    case 'dropdown':
    case 'radio':
      return typeof raw === 'string' && field.options.includes(raw)
        ? { value: raw }
        : { error: `is not one of ${field.options.join(', ')}.` }
  }
}

/** The parameter name a failure names: `custom_fields[ticket_url]`. */
export const paramName = (key: string) => `custom_fields[${key}]`

/** A write's values by key (null: clear), or the first key refused with why. */
export type ReadWrite = { values: Record<string, CustomValue | null> } | { key: string | null; error: string }

/**
 * A write's `custom_fields`: `{ key: value }`, or a read's `{ key: { label, value } }` sent back;
 * a read's `[]` (no values) is no change. A key the record type does not declare is refused.
 * `create`: a required field must have a value; on an update a required one cannot be cleared.
 *
 * @example readWrite(fields, { ticket_url: 'https://t.example', capacity: null }, false)
 * // { values: { ticket_url: 'https://t.example', capacity: null } }
 */
export function readWrite(fields: readonly CustomField[], raw: unknown, create: boolean): ReadWrite {
  const byKey = new Map(fields.map((f) => [f.key, f]))
  if (Array.isArray(raw) && raw.length === 0) raw = {}
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { key: null, error: 'is not an object of custom field values ({ "key": value }).' }
  const values: Record<string, CustomValue | null> = {}
  for (const [key, sent] of Object.entries(raw as Record<string, unknown>)) {
    const field = byKey.get(key)
    if (!field) return { key, error: 'is not a custom field of this record type.' }
    // A read's { label, value } sent back: its value (the label is the declaration's, not data).
    const given = typeof sent === 'object' && sent !== null && !Array.isArray(sent) && 'value' in sent ? sent.value : sent
    const checked = checkValue(field, given)
    if ('error' in checked) return { key, error: checked.error }
    if (checked.value === null && field.required) return { key, error: 'is required.' }
    values[key] = checked.value
  }
  if (create) {
    const missing = fields.find((f) => f.required && (values[f.key] === undefined || values[f.key] === null))
    if (missing) return { key: missing.key, error: 'is required.' }
  }
  return { values }
}

/**
 * The stored values after a write: the record's, with each key sent set (null removes it); keys
 * not sent, declared or not, keep their values. Keys sorted, so an unchanged map is equal JSON.
 *
 * @example mergeValues({ a: 1, old: 'x' }, { a: null, b: true }) // { b: true, old: 'x' }
 */
export function mergeValues(stored: CustomValues | undefined, sent: Readonly<Record<string, CustomValue | null>>): CustomValues {
  const out: Record<string, CustomValue> = { ...(stored ?? {}) }
  for (const [k, v] of Object.entries(sent)) {
    if (v === null) delete out[k]
    else out[k] = v
  }
  return Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((k) => [k, out[k]!]),
  )
}

/** TEC's wire shape of one value. */
export interface ShownValue {
  label: string
  value: CustomValue
}

/**
 * What a read shows: `{ key: { label, value } }` for each declared field with a value that is
 * valid under today's declaration, in declaration order; `[]` when none (TEC's empty PHP array).
 * Values of keys no longer declared (or no longer valid, an option removed) are kept, not shown.
 *
 * @example shownValues(fields, { ticket_url: 'https://t.example', removed: 'x' })
 * // { ticket_url: { label: 'Tickets', value: 'https://t.example' } }
 */
export function shownValues(fields: readonly CustomField[], stored: CustomValues | undefined): Record<string, ShownValue> | [] {
  const out: Record<string, ShownValue> = {}
  for (const f of fields) {
    const v = stored?.[f.key]
    if (v === undefined) continue
    const checked = checkValue(f, v)
    if ('value' in checked && checked.value === v) out[f.key] = { label: f.label, value: v }
  }
  return Object.keys(out).length ? out : []
}

/** One key's filter: `values` as index texts (storage/custom-values.ts), `given` as the request's canonical URL writes them. */
export interface KeyFilter {
  key: string
  values: string[]
  given: string[]
}

/** A list filter's values per key, or the first key refused with why. */
export type ReadFilter = { filters: KeyFilter[] } | { key: string | null; error: string }

/**
 * `custom_fields[key]=value` (several keys ANDed; `custom_fields[key][]=a&custom_fields[key][]=b`
 * or a JSON array ORs values of one key). Values are read as the field's type (`1` and `true`
 * for a checkbox, `12.0` for a number 12), then compared exactly. A comma is part of a value,
 * not a separator: text values may hold commas.
 *
 * @example readFilter(fields, { genre: ['jazz', 'folk'], capacity: '120' })
 * // { filters: [{ key: 'genre', values: ['jazz', 'folk'], given: ['jazz', 'folk'] }, { key: 'capacity', values: ['120'], given: ['120'] }] }
 */
export function readFilter(fields: readonly CustomField[], raw: unknown): ReadFilter {
  const byKey = new Map(fields.map((f) => [f.key, f]))
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { key: null, error: 'must name fields: custom_fields[key]=value.' }
  const filters: KeyFilter[] = []
  for (const [key, sent] of Object.entries(raw as Record<string, unknown>)) {
    const field = byKey.get(key)
    if (!field) return { key, error: 'is not a custom field of events.' }
    const list = Array.isArray(sent) ? sent : [sent]
    if (!list.length) return { key, error: 'needs a value.' }
    const given = new Map<string, string>()
    for (const item of list) {
      const checked = checkValue(field, item)
      if ('error' in checked) return { key, error: checked.error }
      if (checked.value === null) return { key, error: 'needs a value.' }
      given.set(customValueText(checked.value), String(checked.value))
    }
    filters.push({ key, values: [...given.keys()], given: [...given.values()] })
  }
  return { filters }
}
