/**
 * What a calendar app wrote that the event model does not hold (VALARM, ATTENDEE, ATTACH, CLASS,
 * TRANSP, X- properties...): kept per event in the hidden custom field `caldav_extra` and given
 * back inside its VEVENT. Stored base64-encoded: the value is text no reader shows, and encoded
 * it adds no searchable words (an attendee's address is not found by the event search).
 */
import { IcalText } from '../representation/ical.js'

/** The key of the hidden custom field (declared by options.ts when `caldav` is on). */
export const EXTRA_FIELD = 'caldav_extra'

/** The textarea limit of custom fields: an encoded value longer than this cannot be kept. */
export const EXTRA_MAX = 65_535

/**
 * Properties the server writes itself from the event (or must not repeat): never kept, so that
 * an object sent back as it was served does not double them.
 */
export const REGENERATED = new Set([
  'UID',
  'DTSTAMP',
  'CREATED',
  'LAST-MODIFIED',
  'SEQUENCE',
  'DTSTART',
  'DTEND',
  'DURATION',
  'SUMMARY',
  'DESCRIPTION',
  'LOCATION',
  'GEO',
  'URL',
  'CATEGORIES',
  'ORGANIZER',
  'CONTACT',
  'STATUS',
  'CONFERENCE',
  'LINK',
  'X-CALENDAR-GLOBAL-ID',
  'RRULE',
  'RDATE',
  'EXDATE',
  'RECURRENCE-ID',
])

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text)
  let binary = ''
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode(...bytes.subarray(i, i + 8192))
  return btoa(binary)
}

function fromBase64(value: string): string {
  const binary = atob(value)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return new TextDecoder().decode(bytes)
}

/** The stored value of these unfolded lines; null for none (clears the field). */
export const encodeExtras = (lines: readonly string[]): string | null => (lines.length ? toBase64(lines.join('\n')) : null)

/**
 * The unfolded lines a stored value holds. The field is writable through REST too, so a value
 * that is not what this face writes (not base64, a line that is not a content line, components
 * that do not nest, or a VEVENT, VTIMEZONE or VCALENDAR boundary) gives nothing rather than
 * break the object it would go into.
 */
export function decodeExtras(value: unknown): string[] {
  if (typeof value !== 'string' || value.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return []
  const lines = fromBase64(value).split('\n').filter(Boolean)
  const open: string[] = []
  for (const line of lines) {
    // A kept line holding CR or NUL was not written by us: the whole blob is refused.
    if (!/^[A-Za-z0-9-]+[;:]/.test(line) || line.includes('\r') || line.includes('\u0000')) return []
    const m = /^(BEGIN|END):(.*)$/i.exec(line)
    if (!m) continue
    const name = m[2]!.toUpperCase()
    if (name === 'VEVENT' || name === 'VCALENDAR' || name === 'VTIMEZONE') return []
    if (m[1]!.toUpperCase() === 'BEGIN') open.push(name)
    else if (open.pop() !== name) return []
  }
  return open.length ? [] : lines
}

/** The lines folded as iCalendar content lines (CRLF-less), ready to go into a VEVENT. */
export function foldedExtras(lines: readonly string[]): string[] {
  const out = new IcalText()
  for (const l of lines) out.line(l)
  return out
    .toString()
    .split('\r\n')
    .filter((l) => l !== '')
}
