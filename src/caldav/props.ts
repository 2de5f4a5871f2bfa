/**
 * WebDAV and CalDAV properties of the five kinds of resources this face serves: the root, the
 * caller's principal, the calendar home, a calendar (one per language) and a calendar object
 * (an event or a whole series). A property a resource does not have answers 404 in its propstat.
 */
import type { Dav } from './context.js'
import { hrefXml } from './context.js'
import type { Collection, Resource } from './store.js'
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
  const writable = dav.canWrite && (target.kind === 'calendar' || target.kind === 'object')
  const names = writable ? PRIVILEGES_WRITE : PRIVILEGES_READ
  return names.map((n) => tag(DAV, 'privilege', tag(DAV, n))).join('')
}

/** The display name of a language's calendar: the feed's name, with the language when there are several. */
export function calendarName(dav: Dav, language: string): string {
  const name = dav.options.ical.name
  return language === dav.options.defaultLanguage ? name : `${name} (${language})`
}

const REPORTS = [
  [CALDAV, 'calendar-query'],
  [CALDAV, 'calendar-multiget'],
  [DAV, 'sync-collection'],
] as const

/** One property's value as XML (the whole element), or null when the resource has none. */
export function propXml(dav: Dav, target: Target, p: PropName): string | null {
  const k = target.kind
  if (p.ns === DAV) {
    switch (p.name) {
      case 'resourcetype':
        if (k === 'object') return tag(DAV, 'resourcetype')
        if (k === 'principal') return tag(DAV, 'resourcetype', tag(DAV, 'collection') + tag(DAV, 'principal'))
        if (k === 'calendar') return tag(DAV, 'resourcetype', tag(DAV, 'collection') + tag(CALDAV, 'calendar'))
        return tag(DAV, 'resourcetype', tag(DAV, 'collection'))
      case 'displayname': {
        const name =
          k === 'calendar'
            ? calendarName(dav, target.collection.language)
            : k === 'object'
              ? target.resource.title
              : k === 'principal'
                ? `user ${dav.principal.id}`
                : k === 'home'
                  ? 'Calendars'
                  : 'CalDAV'
        return tag(DAV, 'displayname', escapeXml(name))
      }
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
  if (p.ns === CALDAV) {
    if (p.name === 'calendar-home-set' && (k === 'principal' || k === 'root' || k === 'home'))
      return tag(CALDAV, 'calendar-home-set', hrefXml(dav.homePath))
    if (k === 'calendar' && p.name === 'supported-calendar-component-set')
      return tag(CALDAV, 'supported-calendar-component-set', '<c:comp name="VEVENT"/>')
    if (k === 'calendar' && p.name === 'supported-calendar-data')
      return tag(CALDAV, 'supported-calendar-data', '<c:calendar-data content-type="text/calendar" version="2.0"/>')
    if (k === 'calendar' && p.name === 'calendar-description')
      return tag(CALDAV, 'calendar-description', escapeXml(calendarName(dav, target.collection.language)))
    if (k === 'principal' && p.name === 'calendar-user-address-set') return tag(CALDAV, 'calendar-user-address-set')
    return null
  }
  if (p.ns === CS && p.name === 'getctag' && k === 'calendar') return tag(CS, 'getctag', escapeXml(syncTokenUri(target.collection.token)))
  if (p.ns === ICAL_NS && p.name === 'calendar-order' && k === 'calendar')
    return tag(ICAL_NS, 'calendar-order', String(orderOf(dav, target.collection.language)))
  return null
}

/** The default language's calendar first, then the others in the order the site lists them. */
export function orderOf(dav: Dav, language: string): number {
  if (language === dav.options.defaultLanguage) return 0
  return 1 + dav.options.languages.indexOf(language)
}

/** DAV:sync-token must be a URI (RFC 6578 §6.2): the REST sync token under a scheme of ours. */
export const SYNC_SCHEME = 'urn:x-calendar-events-router:sync:'
export const syncTokenUri = (token: string) => `${SYNC_SCHEME}${token}`
