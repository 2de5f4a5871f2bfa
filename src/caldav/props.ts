/**
 * WebDAV and CalDAV properties of the five kinds of resources this face serves: the root, the
 * caller's principal, the calendar home, a calendar (one per language) and a calendar object
 * (an event or a whole series). A property a resource does not have answers 404 in its propstat.
 */
import type { Dav } from './context.js'
import { hrefXml } from './context.js'
import { ALL, categoryOf, type Collection, type Resource } from './store.js'
import { CALDAV, CS, DAV, ICAL_NS, escapeXml, tag } from './xml.js'

export type Target =
  | { kind: 'root' }
  | { kind: 'principal' }
  | { kind: 'home' }
  | { kind: 'calendar'; collection: Collection }
  | { kind: 'object'; collection: Collection; resource: Resource; text: string; etag: string }

export interface PropName {
  ns: string
  name: string
}

/** What PROPFIND's `allprop` answers (RFC 4918 §9.1: the live properties worth listing). */
export const ALLPROP: PropName[] = [
  { ns: DAV, name: 'resourcetype' },
  { ns: DAV, name: 'displayname' },
  { ns: DAV, name: 'getetag' },
  { ns: DAV, name: 'getcontenttype' },
  { ns: DAV, name: 'getcontentlength' },
]

const PRIVILEGES_READ = ['read', 'read-current-user-privilege-set']
const PRIVILEGES_WRITE = [...PRIVILEGES_READ, 'write', 'write-content', 'write-properties', 'bind', 'unbind']

function privileges(dav: Dav, target: Target): string {
  const writable = dav.canWrite && (target.kind === 'calendar' || target.kind === 'object') && target.collection.category === null
  const names = writable ? PRIVILEGES_WRITE : PRIVILEGES_READ
  return names.map((n) => tag(DAV, 'privilege', tag(DAV, n))).join('')
}

/**
 * The display name of a calendar: the feed's name for every language's, with the language for
 * one language's, with the category's name for a category's.
 */
export function calendarName(dav: Dav, c: Collection): string {
  const name = dav.options.ical.name
  if (c.category !== null) return `${name}: ${c.category}`
  return c.language === ALL ? name : `${name} (${c.language})`
}

const REPORTS = [
  [CALDAV, 'calendar-query'],
  [CALDAV, 'calendar-multiget'],
  [DAV, 'sync-collection'],
] as const

function displayName(dav: Dav, target: Target): string {
  if (target.kind === 'calendar') return calendarName(dav, target.collection)
  if (target.kind === 'object') return target.resource.title
  if (target.kind === 'principal') return `user ${dav.principal.id}`
  return target.kind === 'home' ? 'Calendars' : 'CalDAV'
}

function resourceType(target: Target): string {
  if (target.kind === 'object') return tag(DAV, 'resourcetype')
  if (target.kind === 'principal') return tag(DAV, 'resourcetype', tag(DAV, 'collection') + tag(DAV, 'principal'))
  if (target.kind === 'calendar') return tag(DAV, 'resourcetype', tag(DAV, 'collection') + tag(CALDAV, 'calendar'))
  return tag(DAV, 'resourcetype', tag(DAV, 'collection'))
}

/** A DAV: property (RFC 4918, RFC 5397, RFC 3744's privilege set, RFC 6578's sync-token). */
function davProp(dav: Dav, target: Target, name: string): string | null {
  const k = target.kind
  switch (name) {
    case 'resourcetype':
      return resourceType(target)
    case 'displayname':
      return tag(DAV, 'displayname', escapeXml(displayName(dav, target)))
    case 'current-user-principal':
      return tag(DAV, 'current-user-principal', hrefXml(dav.principalPath))
    case 'principal-URL':
      return k === 'principal' ? tag(DAV, 'principal-URL', hrefXml(dav.principalPath)) : null
    case 'owner':
      return k === 'calendar' || k === 'home' ? tag(DAV, 'owner', hrefXml(dav.principalPath)) : null
    case 'current-user-privilege-set':
      return tag(DAV, 'current-user-privilege-set', privileges(dav, target))
    case 'supported-report-set':
      if (k !== 'calendar') return null
      return tag(
        DAV,
        'supported-report-set',
        REPORTS.map(([ns, n]) => tag(DAV, 'supported-report', tag(DAV, 'report', tag(ns, n)))).join(''),
      )
    case 'sync-token':
      return k === 'calendar' ? tag(DAV, 'sync-token', escapeXml(syncTokenUri(target.collection.token))) : null
    case 'getetag':
      return k === 'object' ? tag(DAV, 'getetag', escapeXml(target.etag)) : null
    case 'getcontenttype':
      return k === 'object' ? tag(DAV, 'getcontenttype', 'text/calendar; charset=utf-8; component=vevent') : null
    case 'getcontentlength':
      return k === 'object' ? tag(DAV, 'getcontentlength', String(new TextEncoder().encode(target.text).length)) : null
  }
  return null
}

/** A CALDAV: property (RFC 4791 §5.2, §6.2). */
function caldavProp(dav: Dav, target: Target, name: string): string | null {
  const k = target.kind
  if (name === 'calendar-home-set' && (k === 'principal' || k === 'root' || k === 'home'))
    return tag(CALDAV, 'calendar-home-set', hrefXml(dav.homePath))
  if (k === 'principal' && name === 'calendar-user-address-set') return tag(CALDAV, 'calendar-user-address-set')
  if (k !== 'calendar') return null
  if (name === 'supported-calendar-component-set') return tag(CALDAV, 'supported-calendar-component-set', '<c:comp name="VEVENT"/>')
  if (name === 'supported-calendar-data')
    return tag(CALDAV, 'supported-calendar-data', '<c:calendar-data content-type="text/calendar" version="2.0"/>')
  if (name === 'calendar-description') return tag(CALDAV, 'calendar-description', escapeXml(calendarName(dav, target.collection)))
  return null
}

/** One property's value as XML (the whole element), or null when the resource has none. */
export function propXml(dav: Dav, target: Target, p: PropName): string | null {
  if (p.ns === DAV) return davProp(dav, target, p.name)
  if (p.ns === CALDAV) return caldavProp(dav, target, p.name)
  if (target.kind !== 'calendar') return null
  // Apple's change tag (many clients read it) and calendar order.
  if (p.ns === CS && p.name === 'getctag') return tag(CS, 'getctag', escapeXml(syncTokenUri(target.collection.token)))
  if (p.ns === ICAL_NS && p.name === 'calendar-order')
    return tag(ICAL_NS, 'calendar-order', String(orderOf(dav, target.collection.language)))
  return null
}

/**
 * Every language's calendar first, then the default language's, then the others in the order the
 * site lists them, then the categories'.
 */
export function orderOf(dav: Dav, calendar: string): number {
  if (calendar === ALL) return 0
  if (categoryOf(calendar)) return 2 + dav.options.languages.length
  if (calendar === dav.options.defaultLanguage) return 1
  return 2 + dav.options.languages.indexOf(calendar)
}

/** DAV:sync-token must be a URI (RFC 6578 §6.2): the REST sync token under a scheme of ours. */
export const SYNC_SCHEME = 'urn:x-calendar-events-router:sync:'
export const syncTokenUri = (token: string) => `${SYNC_SCHEME}${token}`
