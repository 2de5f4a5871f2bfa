/**
 * The values of a record's custom fields as the storage keeps them: a JSON object keyed by the
 * host's field keys (`{ "ticket_url": "https://…", "capacity": 120 }`), whatever is declared
 * today. The storage never reads the declarations (src/custom-fields/): a key no longer declared
 * keeps its value, and the router decides what is shown, accepted and filtered. Both backends
 * derive the same things from a record's values here, so they cannot disagree:
 * - the rows of `event_custom_values` (SQL) and the memory backend's match, for the
 *   `custom_fields[key]=value` list filter (`customValueText`, `customValueRows`);
 * - the part of an event's search text the values add (`customSearchText`).
 *
 * Ground floor: imports nothing.
 */

/** One stored value: text (text, textarea, url, email, date, dropdown, radio), a number or a checkbox's boolean. */
export type CustomValue = string | number | boolean

/** A record's custom field values, keys sorted (so equal values are equal JSON). */
export type CustomValues = Readonly<Record<string, CustomValue>>

/** `custom_fields[key]=value` on an event list: the event's value of `key` is one of `values` (texts of customValueText). */
export interface CustomFieldFilter {
  key: string
  values: string[]
}

/**
 * Longest value text kept whole in an index row. PostgreSQL refuses a b-tree entry past about
 * 2,700 bytes; 400 characters of 4-byte UTF-8 plus a 64-character key stay under it.
 */
const WHOLE = 400

/**
 * The text a value is indexed and filtered by: strings as they are, numbers in JavaScript's
 * shortest form (`12`, `12.5`), booleans `true`/`false`. A text longer than WHOLE characters is
 * its first characters plus a 64-bit hash of the whole, so an index row stays small while an
 * exact filter on a long value still finds it (two values differing only past the prefix
 * collide only with the hash).
 *
 * @example customValueText(12.5) // '12.5'
 * @example customValueText(true) // 'true'
 */
export function customValueText(value: CustomValue): string {
  const text = typeof value === 'string' ? value : String(value)
  if (text.length <= WHOLE) return text
  return `${text.slice(0, WHOLE - 20)}\u0001${hash64(text)}`
}

/**
 * The (key, text) rows of `event_custom_values` an event's values make, in key order.
 *
 * @example customValueRows({ genre: 'jazz', capacity: 120 }) // [['capacity', '120'], ['genre', 'jazz']]
 */
export function customValueRows(values: CustomValues | undefined): Array<[string, string]> {
  if (!values) return []
  return Object.keys(values)
    .sort()
    .map((k) => [k, customValueText(values[k]!)])
}

/**
 * Whether an event's values pass every filter (each key ANDed, a key's values ORed): the memory
 * backend's test, the same rule event_custom_values answers on SQL.
 *
 * @example customValuesMatch({ genre: 'jazz' }, [{ key: 'genre', values: ['jazz', 'folk'] }]) // true
 */
export function customValuesMatch(values: CustomValues | undefined, filters: readonly CustomFieldFilter[]): boolean {
  return filters.every((f) => {
    const v = values?.[f.key]
    return v !== undefined && f.values.includes(customValueText(v))
  })
}

/**
 * What an event's custom values add to its search text: every text value, one per line (no
 * search word holds a line break, so none matches across two values). Numbers and checkboxes
 * are not searched.
 *
 * @example customSearchText({ notes: 'Bring <b>boots</b>', capacity: 3 }) // 'Bring <b>boots</b>'
 */
export function customSearchText(values: CustomValues | undefined): string {
  if (!values) return ''
  return Object.keys(values)
    .sort()
    .map((k) => values[k])
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .join('\n')
}

/** Equal value maps, whatever their key order. */
export function sameCustomValues(a: CustomValues | undefined, b: CustomValues | undefined): boolean {
  const ka = Object.keys(a ?? {})
  const kb = Object.keys(b ?? {})
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b ?? {}, k) && (b ?? {})[k] === (a ?? {})[k])
}

/** Two 32-bit FNV-1a variants over UTF-16 units, as 16 hex digits: enough to tell long values apart. */
function hash64(s: string): string {
  let h1 = 0x811c9dc5
  let h2 = 0x01000193 ^ s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 0x01000193)
    h2 = Math.imul(h2 ^ c, 0x5bd1e995)
    h2 ^= h2 >>> 15
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0')
}
