/**
 * Parameter schemas with WordPress's coercion rules (docs/wire-compatibility.md §1.5). Query strings and form
 * bodies carry strings, JSON bodies carry real types; each schema accepts both and outputs the
 * coerced value. Failure messages encode the WordPress error code so the validator can rebuild
 * the envelope: `failure(code, text)` for error objects, `INVALID` for a plain `false`.
 */
import * as v from 'valibot'
import { parseDateInput } from '../time/parse.js'
import { isValidTimezone } from '../time/zone.js'

import { failure, INVALID } from './failure.js'
import { hasControl, httpUrlText, isHttpUrl } from '../http/url.js'
import { wire } from './wire.js'
export { failure, INVALID }
// What a URL field accepts is decided below the schemas, where custom fields' values read it too.
export { hasControl, httpUrlText, isHttpUrl }

const typeFailure = (type: string) => failure('rest_invalid_type', `{name} is not of type ${type}.`)

const isIntString = (s: string) => /^-?\d+$/.test(s)

/** WordPress `integer`: an integer, or a string holding one. */
export const integer = () =>
  wire(
    v.pipe(
      v.union([v.number(), v.string()], typeFailure('integer')),
      v.check(
        (x) => (typeof x === 'number' ? Number.isSafeInteger(x) : isIntString(x.trim()) && Number.isSafeInteger(Number(x))),
        typeFailure('integer'),
      ),
      v.transform((x) => Number(x)),
    ),
    { type: 'integer' },
  )

/** TEC's positive-int validator: numeric, integral, > 0 ("05" passes). Plain `false` on failure. */
export const positiveInt = () =>
  wire(
    v.pipe(
      v.union([v.number(), v.string()], INVALID),
      v.check((x) => {
        const n = typeof x === 'number' ? x : /^\s*\d+(\.0*)?\s*$/.test(x) ? Number(x) : NaN
        return Number.isSafeInteger(n) && n > 0
      }, INVALID),
      v.transform((x) => Math.trunc(Number(x))),
    ),
    { type: 'integer', minimum: 1 },
  )

const TRUE = new Set(['true', '1'])
const FALSE = new Set(['false', '0'])

/** WordPress `boolean`: true/false, 0/1, and those as strings in any case. */
export const boolean = () =>
  wire(
    v.pipe(
      v.union([v.boolean(), v.number(), v.string()], typeFailure('boolean')),
      v.check((x) => {
        if (typeof x === 'boolean') return true
        if (typeof x === 'number') return x === 0 || x === 1
        const s = x.toLowerCase()
        return TRUE.has(s) || FALSE.has(s)
      }, typeFailure('boolean')),
      v.transform((x) => (typeof x === 'string' ? TRUE.has(x.toLowerCase()) : Boolean(x))),
    ),
    { type: 'boolean' },
  )

/** WordPress `number`: a finite number or a numeric string. */
export const number = () =>
  wire(
    v.pipe(
      v.union([v.number(), v.string()], typeFailure('number')),
      v.check((x) => x !== '' && Number.isFinite(Number(x)), typeFailure('number')),
      v.transform((x) => Number(x)),
    ),
    { type: 'number' },
  )

/** WordPress `string`: JSON numbers and booleans are rejected. */
export const string = () => v.string(typeFailure('string'))

/** TEC's non-empty-string validator. */
export const nonEmptyString = () =>
  wire(
    v.pipe(
      v.string(typeFailure('string')),
      v.check((s) => s !== '' && s !== '0', INVALID),
    ),
    { type: 'string', minLength: 1 },
  )

/** A string of bounded size (titles, names, descriptions): hostile megabyte values are rejected early. */
export const text = (max = 65535) =>
  wire(v.pipe(v.string(typeFailure('string')), v.maxLength(max, INVALID)), { type: 'string', maxLength: max })

const NOT_A_DATE = failure(
  'rest_invalid_date',
  '{name} is not a date this API reads: YYYY-MM-DD, YYYY-MM-DD HH:MM:SS, ISO 8601 (2026-12-01T19:00:00Z), a Unix timestamp, or an English expression such as "next friday" or "+1 week".',
)

/** Any date the time module can read; kept raw, the resource parses it in the right zone. */
export const dateInput = (typed = false) =>
  wire(
    v.pipe(
      typed ? v.union([v.string(), v.number()], typeFailure('string')) : v.unknown(),
      v.check((x) => parseDateInput(x, 'UTC') !== null, NOT_A_DATE),
      v.transform((x) => x as string | number),
    ),
    { type: ['string', 'number'], description: 'A date: YYYY-MM-DD HH:MM:SS, ISO 8601, a Unix timestamp or a relative expression.' },
  )

export const timezone = () =>
  wire(
    v.pipe(
      v.string(typeFailure('string')),
      v.check((s) => s === '' || isValidTimezone(s), INVALID),
    ),
    { type: 'string' },
  )

/** The failure of a URL field that holds a control character. */
export const URL_CONTROL = failure('rest_invalid_param', '{name} holds a control character (CR, LF, tab, NUL or another); a URL cannot.')

/** Why a URL field's value is refused: a control character, or not an absolute http(s) URL. */
export const urlFailure = (issue: { input: unknown }) =>
  typeof issue.input === 'string' && hasControl(issue.input) ? URL_CONTROL : INVALID

/** Absolute http(s) URL, or empty to clear; what is stored is its serialized form (`httpUrlText`). */
export const urlOrEmpty = () =>
  wire(
    v.pipe(
      v.union([v.string(), v.null()], typeFailure('string')),
      v.check((s) => s === null || s === '' || isHttpUrl(s), urlFailure),
      v.transform((s) => (s === null || s === '' ? s : (httpUrlText(s) as string))),
    ),
    { type: ['string', 'null'] },
  )

/** An array, or a comma-separated string, split and trimmed; empty items dropped. */
export function splitList(x: unknown): unknown[] | null {
  if (Array.isArray(x)) return x as unknown[]
  if (typeof x === 'number') return [x]
  if (typeof x === 'string')
    return x
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
  return null
}

const MAX_LIST = 500

/** Array or CSV of positive integers, at least one. */
export const positiveIntList = () =>
  wire(
    v.pipe(
      v.unknown(),
      v.check((x) => {
        const list = splitList(x)
        return list !== null && list.length > 0 && list.length <= MAX_LIST && list.every(isPositiveIntLike)
      }, INVALID),
      v.transform((x) => [...new Set((splitList(x) as unknown[]).map((i) => Number(i)))]),
    ),
    { type: 'array', items: { type: 'integer' } },
  )

/** Array or CSV of term ids or slugs/names (existence is checked by the resource). */
export const termRefList = () =>
  wire(
    v.pipe(
      v.unknown(),
      v.check((x) => {
        const list = splitList(x)
        return (
          list !== null &&
          list.length > 0 &&
          list.length <= MAX_LIST &&
          list.every((i) => (typeof i === 'number' && isPositiveIntLike(i)) || (typeof i === 'string' && i.length <= 200))
        )
      }, INVALID),
      v.transform((x) => (splitList(x) as Array<string | number>).map((i) => (typeof i === 'string' && /^\d+$/.test(i) ? Number(i) : i))),
    ),
    { type: 'array', items: { type: ['integer', 'string'] } },
  )

export function isPositiveIntLike(x: unknown): boolean {
  if (typeof x === 'number') return Number.isSafeInteger(x) && x > 0
  return typeof x === 'string' && /^\d+$/.test(x) && Number(x) > 0 && Number.isSafeInteger(Number(x))
}

/** A value from a fixed list (the language parameter): WordPress's enum error. */
export function oneOf<T extends string>(values: readonly T[]) {
  const list =
    values.length === 1
      ? `{name} is not ${values[0]}.`
      : `{name} is not one of ${values.slice(0, -1).join(', ')}${values.length > 2 ? ',' : ''} and ${values[values.length - 1]}.`
  return wire(v.pipe(v.string(typeFailure('string')), v.picklist(values, failure('rest_not_in_enum', list))), {
    type: 'string',
    enum: [...values],
  })
}
