/**
 * Two things exporters do with iCalendar identity: events without UID (optional in RFC 2445;
 * old OWA and iCal exports) get a stable id derived from what they show, and several copies of
 * one UID (a feed that appends instead of replacing) are settled as RFC 5545 §3.8.7.4 says: the
 * highest SEQUENCE wins, then the latest LAST-MODIFIED, then DTSTAMP; the others are left out
 * with a note on the winner.
 */
import type ICAL from 'ical.js'
import { scalarText } from '../http/params.js'

export interface ParsedEvent {
  ref: string
  comp?: ICAL.Component
  error?: string
  /** Said on the event's records (a derived UID, copies left out). */
  notes: string[]
}

const prop = (comp: ICAL.Component, name: string): string => {
  const p = comp.getFirstProperty(name)
  return p ? scalarText((p.toJSON() as unknown[])[3]) : ''
}

/** Gives each event without UID one derived from its SUMMARY and DTSTART (as the CSV importer does with its rows). */
export function deriveUids(events: ParsedEvent[]): void {
  for (const e of events) {
    if (!e.comp || String(e.comp.getFirstPropertyValue('uid') ?? '').trim()) continue
    const start = e.comp.getFirstProperty('dtstart')
    const seed = [
      prop(e.comp, 'summary'),
      prop(e.comp, 'dtstart'),
      String(start?.getParameter('tzid') ?? ''),
      prop(e.comp, 'recurrence-id'),
    ]
    const uid = `derived-${hex64(seed.join('\u0000'))}@ics`
    e.comp.updatePropertyWithValue('uid', uid)
    e.notes.push(`has no UID: known by its SUMMARY and DTSTART as ${uid}; renaming or moving it imports it anew`)
  }
}

/** SEQUENCE, then LAST-MODIFIED, then DTSTAMP: what decides which copy of an event is current. */
function rank(comp: ICAL.Component): [number, string, string] {
  const sequence = Number.parseInt(prop(comp, 'sequence'), 10)
  return [Number.isFinite(sequence) ? sequence : 0, prop(comp, 'last-modified'), prop(comp, 'dtstamp')]
}

const newer = (a: [number, string, string], b: [number, string, string]) =>
  a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] > b[2]

/** The events with only the current copy of each UID (and RECURRENCE-ID) kept, in file order. */
export function latestCopies(events: ParsedEvent[]): ParsedEvent[] {
  const best = new Map<string, ParsedEvent>()
  const keyOf = (c: ICAL.Component) => `${String(c.getFirstPropertyValue('uid'))}\u0000${prop(c, 'recurrence-id')}`
  for (const e of events) {
    if (!e.comp) continue
    const key = keyOf(e.comp)
    const held = best.get(key)
    if (!held) best.set(key, e)
    else {
      const [win, lose] = newer(rank(e.comp), rank(held.comp!)) ? [e, held] : [held, e]
      const r = rank(lose.comp!)
      win.notes.push(
        `an older copy at ${lose.ref.replace('VEVENT at ', '')} (SEQUENCE ${r[0]}) was left out`,
        ...lose.notes.filter((n) => n.startsWith('an older copy')),
      )
      best.set(key, win)
    }
  }
  return events.filter((e) => !e.comp || best.get(keyOf(e.comp)) === e)
}

/**
 * 16 hex digits of two FNV-1a hashes of the text's UTF-8 bytes (two offsets, two primes): a
 * stable id, the same on every runtime. No node:crypto: the CalDAV face, in the root entry that
 * loads on Bun, Deno and workers, reads iCalendar through this module.
 */
function hex64(text: string): string {
  let a = 0x811c9dc5
  let b = 0x050c5d1f
  for (const byte of new TextEncoder().encode(text)) {
    a = Math.imul(a ^ byte, 0x01000193)
    b = Math.imul(b ^ byte, 0x01000197)
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0')
}
