/**
 * REPORTs on a calendar: calendar-multiget and calendar-query (RFC 4791 §7.8, §7.9) and
 * sync-collection (RFC 6578) from the REST sync. A time-range finds events by their stored
 * occurrences (every occurrence of a series is an event of its own), through the REST list.
 */
import type { RawResponse } from '../http/types.js'
import { canEditOthers } from '../auth/principal.js'
import { objectPath, type Dav } from './context.js'
import { davError, multistatus, propResponse, statusResponse } from './multistatus.js'
import { propXml, SYNC_SCHEME, syncTokenUri, type PropName, type Target } from './props.js'
import { needOf, objectTargets } from './propfind.js'
import { continuation, languagesOf, listQuery, nameOf, packToken, unpackToken, type Collection, type Resource } from './store.js'
import { keyOf, syncPage } from './answers.js'
import { CALDAV, DAV, child, children, escapeXml, parseXml, tag, type XmlElement } from './xml.js'

/** A report's answer for one object: the asked properties, calendar-data among them. */
function objectResponse(dav: Dav, href: string, t: Target, props: PropName[]): string {
  const found: string[] = []
  const missing: string[] = []
  for (const p of props) {
    if (p.ns === CALDAV && p.name === 'calendar-data' && t.kind === 'object') found.push(tag(CALDAV, 'calendar-data', escapeXml(t.text)))
    else {
      const xml = propXml(dav, t, p)
      if (xml !== null) found.push(xml)
      else missing.push(tag(p.ns, p.name))
    }
  }
  return propResponse(href, found, missing)
}

const propsOf = (root: XmlElement): PropName[] =>
  (child(root, DAV, 'prop')?.children ?? [{ ns: DAV, name: 'getetag' }]).map((c) => ({ ns: c.ns, name: c.name }))

async function answerObjects(dav: Dav, c: Collection, resources: Resource[], props: PropName[]): Promise<string[]> {
  const targets = await objectTargets(dav, c, resources, needOf(props))
  return targets.map((t) => objectResponse(dav, t.kind === 'object' ? objectPath(dav, c, t.resource) : '', t, props))
}

export async function report(dav: Dav, language: string, body: string): Promise<RawResponse> {
  const root = parseXml(body)
  if (root.ns === CALDAV && root.name === 'calendar-multiget') return multiget(dav, language, root)
  if (root.ns === CALDAV && root.name === 'calendar-query') return query(dav, language, root)
  if (root.ns === DAV && root.name === 'sync-collection') return syncCollection(dav, language, root)
  return davError(403, 'd:supported-report', `The report ${root.name} is not supported here`)
}

async function multiget(dav: Dav, language: string, root: XmlElement): Promise<RawResponse> {
  const c = await dav.collection(language)
  const props = propsOf(root)
  const prefix = dav.calendarPath(language)
  const found: Resource[] = []
  const responses: string[] = []
  for (const h of children(root, DAV, 'href')) {
    const href = h.text.trim()
    let path = href
    try {
      path = decodeURIComponent(new URL(href, 'http://x').pathname)
    } catch (error) {
      responses.push(statusResponse(href, 'HTTP/1.1 400 Bad Request'))
      void error
      continue
    }
    const r = path.startsWith(prefix) ? c.byName.get(path.slice(prefix.length)) : undefined
    if (r) found.push(r)
    else responses.push(statusResponse(href, 'HTTP/1.1 404 Not Found'))
  }
  return multistatus([...(await answerObjects(dav, c, found, props)), ...responses])
}

/** `20260101T000000Z` as a UTC wall clock, or null. */
function utcValue(s: string | undefined): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s ?? '')
  return m ? `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6]}` : null
}

async function query(dav: Dav, language: string, root: XmlElement): Promise<RawResponse> {
  const c = await dav.collection(language)
  const filter = child(root, CALDAV, 'filter')
  const calendar = filter && child(filter, CALDAV, 'comp-filter')
  if (!calendar || calendar.attrs.name !== 'VCALENDAR')
    return davError(403, 'c:valid-filter', 'The filter must hold a VCALENDAR comp-filter')
  const inner = children(calendar, CALDAV, 'comp-filter')
  if (inner.some((f) => f.attrs.name !== 'VEVENT')) return multistatus([])
  const event = inner[0]
  const unsupported = event?.children.find(
    (f) => f.ns === CALDAV && f.name !== 'time-range' && !(f.name === 'prop-filter' && f.attrs.name?.toUpperCase() === 'UID'),
  )
  if (unsupported) return davError(403, 'c:supported-filter', 'Only time-range and UID prop-filter on VEVENT are supported')
  const range = event && child(event, CALDAV, 'time-range')
  let resources = c.resources
  if (range) {
    const start = range.attrs.start === undefined ? null : utcValue(range.attrs.start)
    const end = range.attrs.end === undefined ? null : utcValue(range.attrs.end)
    if ((range.attrs.start !== undefined && !start) || (range.attrs.end !== undefined && !end) || (!start && !end)) {
      return davError(400, 'c:valid-filter', 'time-range start and end must be UTC date-times such as 20260101T000000Z')
    }
    // The calendar as held indexes every event's UTC span: no list request (RFC 4791 §9.9 overlap).
    resources = c.dates().overlapping(start, end)
  }
  const uidFilter = event && child(event, CALDAV, 'prop-filter')
  if (uidFilter) resources = resources.filter(uidMatcher(uidFilter))
  return multistatus(await answerObjects(dav, c, resources, propsOf(root)))
}

/** A prop-filter on UID (RFC 4791 §9.7.2): text-match, case-insensitive `contains` unless told otherwise, or is-not-defined. */
function uidMatcher(filter: XmlElement): (r: Resource) => boolean {
  if (child(filter, CALDAV, 'is-not-defined')) return () => false
  const match = child(filter, CALDAV, 'text-match')
  if (!match) return () => true
  const wanted = match.text.toLowerCase()
  const type = match.attrs['match-type'] ?? 'contains'
  const negate = match.attrs['negate-condition'] === 'yes'
  const test = (uid: string) => {
    const u = uid.toLowerCase()
    if (type === 'equals') return u === wanted
    if (type === 'starts-with') return u.startsWith(wanted)
    if (type === 'ends-with') return u.endsWith(wanted)
    return u.includes(wanted)
  }
  return (r) => test(r.uid) !== negate
}

interface Changes {
  changed: Set<number>
  deleted: Set<number>
  token: string
  /** More changes follow (DAV:limit reached): the token continues from here. */
  truncated: boolean
  /** Records read (events and deletions). */
  seen: number
}

/**
 * The changes of a calendar since its token (empty: everything), each language from its own
 * REST token, at most `limit` records in all: languages the limit left out keep their token.
 */
async function calendarChanges(dav: Dav, calendar: string, given: string, limit: number | null): Promise<Changes | 'invalid'> {
  const languages = languagesOf(calendar, dav.options.languages)
  const from = given === '' ? Object.fromEntries(languages.map((l) => [l, '*'])) : unpackToken(calendar, given, languages)
  if (!from) return 'invalid'
  const out: Changes = { changed: new Set(), deleted: new Set(), token: '', truncated: false, seen: 0 }
  const tokens = { ...from }
  for (const language of languages) {
    const left = limit === null ? null : limit - out.seen
    if (left !== null && left <= 0) {
      out.truncated = true
      continue
    }
    const changes = await restChanges(dav, language, from[language]!, left)
    if (changes === 'invalid') return 'invalid'
    for (const k of changes.changed) out.changed.add(k)
    for (const id of changes.deleted) out.deleted.add(id)
    out.seen += changes.seen
    out.truncated ||= changes.truncated
    tokens[language] = changes.token
  }
  out.token = packToken(calendar, tokens)
  return out
}

/** Reads the REST sync of one language from `token` (`*` for everything) until its end or `limit` records. */
async function restChanges(dav: Dav, language: string, token: string, limit: number | null): Promise<Changes | 'invalid'> {
  const out: Changes = { changed: new Set(), deleted: new Set(), token: '', truncated: false, seen: 0 }
  const perPage = Math.min(100, limit ?? 100)
  let path: string | null = `/events?sync_token=${encodeURIComponent(token)}&per_page=${perPage}&${listQuery(language, dav.canWrite)}`
  let seen = 0
  while (path) {
    const answer = await dav.rest.send('GET', path)
    if (answer.status === 400 || answer.status === 410) return 'invalid'
    if (answer.status !== 200) throw new Error(`calendar-events-router: the REST sync answered ${answer.status}`)
    const page = syncPage(answer.json)
    for (const e of page.events) out.changed.add(keyOf(e))
    for (const id of page.deleted) out.deleted.add(id)
    seen += page.events.length + page.deleted.length
    out.seen = seen
    const next = page.next
    if (!next) {
      out.token = page.token
      return out
    }
    const pageToken = new URL(next).searchParams.get('sync_token') ?? ''
    if (limit !== null && seen >= limit) {
      out.token = pageToken
      out.truncated = true
      return out
    }
    // Never more than `limit` in all: the last page asks for what is left.
    const left = limit === null ? 100 : Math.min(100, limit - seen)
    path = continuation(dav.rest, next, language).replace(/([?&]per_page=)\d+/, `$1${left}`)
  }
  return out
}

/**
 * Names of removed events: the name a calendar app gave each, as the change journal recorded it
 * (in any process, after any restart), told to a caller who sees drafts of others or when the
 * event was published; otherwise, or with no name recorded, the feed's `{id}@{host}.ics`.
 */
async function removedNames(dav: Dav, ids: number[]): Promise<Map<number, string>> {
  const names = new Map<number, string>(ids.map((id) => [id, `${nameOf(`${id}@${dav.host}`)}.ics`]))
  if (!ids.length) return names
  const seesAll = canEditOthers(dav.principal)
  for (const n of await dav.journalNames(ids)) if (seesAll || n.published) names.set(n.id, n.name)
  return names
}

/**
 * The changes since a token from the calendar as held, with no REST request: everything for an
 * initial sync, or the deltas the cache applied since a token it gave. Null otherwise.
 */
function knownChanges(dav: Dav, c: Collection, token: string): Changes | null {
  const known = token === '' ? { changed: new Set(c.byKey.keys()), deleted: new Set<number>() } : dav.changesSince(c, token)
  return known && { ...known, token: c.token, truncated: false, seen: known.changed.size + known.deleted.size }
}

async function syncCollection(dav: Dav, language: string, root: XmlElement): Promise<RawResponse> {
  const given = child(root, DAV, 'sync-token')?.text.trim() ?? ''
  if (given !== '' && !given.startsWith(SYNC_SCHEME)) return davError(403, 'd:valid-sync-token', 'This sync token is not one of ours')
  const level = child(root, DAV, 'sync-level')?.text.trim()
  if (level !== undefined && level !== '1') return davError(403, 'd:sync-traversal-supported', 'Only sync-level 1 is supported')
  const nresults = child(root, DAV, 'limit') && child(child(root, DAV, 'limit')!, DAV, 'nresults')
  const limit = nresults ? Number(nresults.text.trim()) : null
  if (limit !== null && !(Number.isSafeInteger(limit) && limit > 0))
    return davError(400, 'd:number-of-matches-within-limits', 'nresults must be a positive integer')
  const token = given === '' ? '' : given.slice(SYNC_SCHEME.length)
  const c = await dav.collection(language)
  const changes = (limit === null && knownChanges(dav, c, token)) || (await calendarChanges(dav, language, token, limit))
  if (changes === 'invalid')
    return davError(403, 'd:valid-sync-token', 'This sync token is unknown or has expired: sync again from the start')
  const present = [...changes.changed].map((k) => c.byKey.get(k)).filter((r): r is Resource => r !== undefined)
  // An id one language's sync calls deleted may be an event of another language, or an
  // occurrence of a series still there: only ids no resource holds are gone.
  const held = changes.deleted.size ? new Set(c.resources.flatMap((r) => r.ids)) : new Set<number>()
  const gone = [...changes.deleted].filter((id) => !held.has(id) && !changes.changed.has(id))
  const names = await removedNames(dav, gone)
  const removed: string[] = []
  // A series' occurrences are one resource: its name once. A name still in the calendar (an
  // occurrence removed from a series that remains) is that resource changed, not removed.
  for (const name of new Set(gone.map((id) => names.get(id)!))) {
    const still = c.byName.get(name)
    if (!still) removed.push(statusResponse(`${dav.calendarPath(language)}${name}`, 'HTTP/1.1 404 Not Found'))
    else if (!present.includes(still)) present.push(still)
  }
  const responses = [...(await answerObjects(dav, c, present, propsOf(root))), ...removed]
  if (changes.truncated) responses.push(statusResponse(dav.calendarPath(language), 'HTTP/1.1 507 Insufficient Storage'))
  return multistatus(responses, tag(DAV, 'sync-token', escapeXml(syncTokenUri(changes.token))))
}
