/**
 * Calendar object resources: GET (the event or series as iCalendar, with a strong ETag), PUT
 * (create or update through the REST event writes, with If-Match / If-None-Match) and DELETE (to
 * the trash, through the REST delete). Every write is a REST request as the caller, so roles
 * decide: a contributor's new event is a draft for review, a subscriber may not write.
 */
import { canPublish } from '../auth/principal.js'
import type { RawResponse } from '../http/types.js'
import { ifMatchHolds } from '../http/etag.js'
import { etagOf, type Dav } from './context.js'
import { IcsInputError, linkedBody, originalOf, readPut, restBody, vevents, type Lines, type PutEvent } from './ics-in.js'
import { encodeExtras, EXTRA_FIELD, EXTRA_MAX } from './extras.js'
import { davError, plain } from './multistatus.js'
import { at, eventsOf, listAt, numberAt, textAt, type EventFacts } from './answers.js'
import { ALL, categoryOf, continuation, listQuery, type Collection, type Resource } from './store.js'

async function rendered(dav: Dav, c: Collection, r: Resource): Promise<{ text: string; etag: string }> {
  const text = (await dav.render(c, [r])).get(r.key) ?? ''
  return { text, etag: etagOf(text) }
}

export async function getObject(dav: Dav, language: string, name: string, ifNoneMatch: string | null): Promise<RawResponse> {
  const c = await dav.collection(language)
  const r = c.byName.get(name)
  if (!r) return davError(404, '', 'No such calendar object')
  const { text, etag } = await rendered(dav, c, r)
  if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === '*')) return plain(304, { ETag: etag })
  return { status: 200, headers: { DAV: '1, 3, calendar-access', 'Content-Type': 'text/calendar; charset=utf-8', ETag: etag }, body: text }
}

/**
 * The preconditions of a write on a resource whose current ETag is `etag` (null: no such
 * resource), checked inside the write's transaction; null when they hold.
 */
function preconditions(etag: string | null, ifMatch: string | null, ifNoneMatch: string | null) {
  if (ifNoneMatch !== null && ifNoneMatch.trim() === '*' && etag !== null)
    return davError(412, '', 'The resource exists (If-None-Match: *)')
  if (ifMatch === null) return null
  if (etag === null) return davError(412, '', 'The resource does not exist (If-Match)')
  return ifMatchHolds(ifMatch, etag) ? null : davError(412, '', 'The resource changed since that ETag (If-Match)')
}

/** A REST answer that is not a success, as a DAV error with the REST message. */
function restFailure(answer: { status: number; json: unknown }): RawResponse {
  const status = answer.status >= 400 && answer.status < 500 ? answer.status : 502
  const message = textAt(answer.json, 'message') ?? `The calendar answered ${answer.status}`
  return davError(status === 401 ? 403 : status, status === 403 ? 'd:need-privileges' : '', message)
}

/** A name a calendar app may give: printable ASCII without what would need escaping in HTML. */
const SAFE_NAME = /^[\x21-\x7e]{1,200}$/
const UNSAFE = /[<>&"'\\/]/

/** A category's calendar is read-only: events are written in the calendar of all events. */
const readOnly = (dav: Dav, calendar: string) =>
  !dav.canWrite
    ? davError(403, 'd:need-privileges', 'Your role may only read this calendar')
    : categoryOf(calendar)
      ? davError(403, 'd:need-privileges', 'The calendar of a category is read-only: write in the calendar of all events')
      : null

export async function putObject(dav: Dav, language: string, name: string, headers: PutHeaders, body: string): Promise<RawResponse> {
  const denied = readOnly(dav, language)
  if (denied) return denied
  if (!SAFE_NAME.test(name) || UNSAFE.test(name))
    return davError(400, '', 'The resource name must be printable ASCII without < > & " \' \\ or /')
  if (headers.contentType !== null && !/^text\/calendar\b/i.test(headers.contentType)) {
    return davError(415, 'c:supported-calendar-data', 'A calendar object must be sent as text/calendar')
  }
  let put: PutEvent
  try {
    put = readPut(body)
  } catch (error) {
    if (!(error instanceof IcsInputError)) throw error
    return davError(error.condition === 'c:valid-calendar-data' ? 400 : 403, error.condition, error.message)
  }
  if (!SAFE_NAME.test(put.uid) || UNSAFE.test(put.uid))
    return davError(400, 'c:valid-calendar-data', 'The UID must be printable ASCII without < > & " \' \\ or /')
  const c = await dav.collection(language)
  const r = c.byName.get(name)
  const owner = c.byUid.get(put.uid)
  if ((r && r.uid !== put.uid) || (!r && owner)) {
    return davError(403, 'c:no-uid-conflict', r ? 'The UID of a calendar object cannot change' : `The UID is used by ${owner!.name}`)
  }
  // The ETag check and the writes in one transaction: a concurrent edit between them cannot be lost.
  return dav.atomically((inside) => writePut(inside, c, r, { language, name, put, headers }))
}

/**
 * Whether a resource of this name or UID was created since the calendar was read (by a request
 * that raced this one): looked up inside the write's transaction by the custom fields that hold
 * them, in every language of the calendar.
 */
async function takenMeanwhile(dav: Dav, c: Collection, name: string, uid: string): Promise<'name' | 'uid' | null> {
  for (const [field, value] of [
    ['caldav_name', name],
    ['caldav_uid', uid],
  ] as const) {
    for (const language of c.languages) {
      const filter = `custom_fields[${field}]=${encodeURIComponent(value)}`
      const answer = await dav.rest.send(
        'GET',
        `/events?${filter}&start_date=1900-01-01&end_date=2999-12-31&per_page=1&${listQuery(language, dav.canWrite)}`,
      )
      if (answer.status !== 200) throw new Error(`calendar-events-router: the REST list answered ${answer.status}`)
      if (listAt(answer.json, 'events').length) return field === 'caldav_name' ? 'name' : 'uid'
    }
  }
  return null
}

interface PutWrite {
  language: string
  name: string
  put: PutEvent
  headers: PutHeaders
}

/** A PUT's preconditions and writes, inside the transaction. */
async function writePut(dav: Dav, c: Collection, r: Resource | undefined, { language, name, put, headers }: PutWrite) {
  const current = r ? await rendered(dav, c, r) : null
  const failed = preconditions(current?.etag ?? null, headers.ifMatch, headers.ifNoneMatch)
  if (failed) return failed
  if (!r) {
    const taken = await takenMeanwhile(dav, c, name, put.uid)
    if (taken === 'name')
      return headers.ifNoneMatch?.trim() === '*'
        ? davError(412, '', 'The resource exists (If-None-Match: *)')
        : davError(409, '', 'The resource was created meanwhile: read it and try again')
    if (taken === 'uid') return davError(403, 'c:no-uid-conflict', 'The UID is used by another calendar object')
  }
  const served = current ? vevents(current.text).events : []
  const masterServed = served.find((e) => e.recurrenceId === null)?.lines ?? null
  const payload = restBody(put.master, put.masterLines, masterServed, await venueOf(dav, put, put.master), organizerOf(put, put.master))
  const extra = encodeExtras(put.masterExtras)
  if (extra !== null && extra.length > EXTRA_MAX) return davError(403, 'c:max-resource-size', 'Too much besides the event itself to keep')
  let key: number
  if (!r) {
    payload.status = canPublish(dav.principal) ? 'publish' : 'draft'
    payload.custom_fields = { caldav_uid: put.uid, caldav_name: name, ...(extra === null ? {} : { [EXTRA_FIELD]: extra }) }
    // A new event of the all-languages calendar is in the site's default language.
    const into = language === ALL ? dav.options.defaultLanguage : language
    const answer = await dav.rest.send('POST', `/events?multilingual_language=${encodeURIComponent(into)}`, payload)
    if (answer.status !== 201 && answer.status !== 200) return restFailure(answer)
    const id = numberAt(answer.json, 'id')
    if (id === null) throw new Error('calendar-events-router: the REST create answered without an id')
    key = id
  } else {
    key = r.key
    // An unchanged value writes nothing (the REST update compares custom values).
    payload.custom_fields = { [EXTRA_FIELD]: extra }
    if (Object.keys(payload).length) {
      const series = r.ids.length > 1 || r.rrule !== null
      const answer = await dav.rest.send('POST', `/events/${key}${series ? '?recurrence_scope=all' : ''}`, payload)
      if (answer.status !== 200) return restFailure(answer)
    }
  }
  if (r) {
    const failure = await revertOverrides(dav, key, put, served)
    if (failure) return failure
  }
  if (put.overrides.length) {
    const failure = await writeOverrides(dav, r?.language ?? (language === ALL ? dav.options.defaultLanguage : language), key, put, served)
    if (failure) return failure
  }
  // The stored form is never byte for byte what was sent (DTSTAMP, SEQUENCE, URL...): no ETag,
  // so the app reads the event again (RFC 4791 §5.3.4).
  return plain(r ? 204 : 201)
}

export interface PutHeaders {
  contentType: string | null
  ifMatch: string | null
  ifNoneMatch: string | null
}

/**
 * The venue of a LOCATION: the venue of that exact name (its first part, before a comma or line
 * break) if the caller can see one, else the importer's venue data, which the REST write reuses
 * when it matches a venue exactly and otherwise creates as a new venue.
 */
async function venueOf(dav: Dav, put: PutEvent, record: PutEvent['master']): Promise<unknown> {
  const body = linkedBody(put.records, record.refs?.venue?.[0])
  if (!body) return undefined
  const title = String(body.venue)
  const found = await dav.rest.send('GET', `/venues?search=${encodeURIComponent(title.slice(0, 200))}&per_page=50`)
  const same = found.status === 200 ? listAt(found.json, 'venues').find((v) => textAt(v, 'venue') === title) : undefined
  const id = numberAt(same, 'id')
  if (id !== null) return id
  return {
    venue: body.venue,
    ...(body.address ? { address: body.address } : {}),
    ...(body.geo_lat !== undefined ? { geo_lat: body.geo_lat, geo_lng: body.geo_lng } : {}),
  }
}

function organizerOf(put: PutEvent, record: PutEvent['master']): unknown {
  const ids = record.refs?.organizer ?? []
  const bodies = ids.map((id) => linkedBody(put.records, id)).filter((b) => b !== undefined)
  return bodies.length ? bodies.map((b) => ({ organizer: b.organizer, ...(b.email ? { email: b.email } : {}) })) : undefined
}

/**
 * The events of a series as the caller sees them, read inside the write's transaction (where the
 * REST sync, which reads the journal, is not available): its head, then its later occurrences.
 */
async function eachMember(dav: Dav, key: number, language: string, fn: (event: EventFacts) => void): Promise<RawResponse | null> {
  const query = listQuery(language, dav.canWrite)
  const head = await dav.rest.send('GET', `/events?include=${key}&${query}`)
  if (head.status !== 200) return restFailure(head)
  for (const e of eventsOf(head.json)) fn(e)
  // Every date: the occurrences before today and up to the furthest a list shows.
  let path: string | null = `/events?post_parent=${key}&start_date=1900-01-01&end_date=2999-12-31&per_page=100&${query}`
  while (path) {
    const answer = await dav.rest.send('GET', path)
    if (answer.status !== 200) return restFailure(answer)
    for (const e of eventsOf(answer.json)) fn(e)
    const next = textAt(answer.json, 'next_rest_url')
    path = next ? continuation(dav.rest, next, language) : null
  }
  return null
}

/** The id of the event an object's VEVENT was served from (its X-CALENDAR-GLOBAL-ID), or null. */
const servedId = (lines: Lines): number | null => {
  const id = Number(/\?id=(\d+)/.exec(lines.get('X-CALENDAR-GLOBAL-ID') ?? '')?.[1])
  return Number.isSafeInteger(id) ? id : null
}

/**
 * Occurrences served edited on their own (RECURRENCE-ID) that the app sent back without their
 * VEVENT go back to the rule's form. The series model has no "undo" of a `this` edit, so the
 * edited occurrence is deleted for good (which excludes its day) and the series' exclusions are
 * then set back to what they were, which makes the series write that day anew from its first
 * occurrence. An occurrence whose day the series excludes already is left as it is.
 */
async function revertOverrides(dav: Dav, key: number, put: PutEvent, served: ReturnType<typeof vevents>['events']) {
  const kept = new Set(put.overrides.map((o) => o.record.occurrenceOf!.original))
  const gone = served.filter((e) => e.recurrenceId !== null && !kept.has(originalOf(e.recurrenceId) ?? ''))
  if (!gone.length) return null
  const head = await dav.rest.send('GET', `/events/${key}?status=any`)
  if (head.status !== 200) return restFailure(head)
  const recurrence = at(head.json, 'recurrence')
  if (!recurrence || typeof recurrence !== 'object') return null
  const excluded = new Set(listAt(recurrence, 'exdate').filter((d) => typeof d === 'string'))
  let removed = 0
  for (const e of gone) {
    const id = servedId(e.lines)
    if (id === null || id === key || excluded.has(originalOf(e.recurrenceId!) ?? '')) continue
    const answer = await dav.rest.send('DELETE', `/events/${id}?force=true`)
    if (answer.status !== 200) return restFailure(answer)
    removed++
  }
  if (!removed) return null
  const [rrule, rdate, exdate] = [at(recurrence, 'rrule'), at(recurrence, 'rdate'), at(recurrence, 'exdate')]
  const answer = await dav.rest.send('POST', `/events/${key}?recurrence_scope=all`, { recurrence: { rrule, rdate, exdate } })
  return answer.status === 200 ? null : restFailure(answer)
}

/** Edited occurrences (RECURRENCE-ID) as edits of that occurrence alone (`recurrence_scope=this`). */
async function writeOverrides(
  dav: Dav,
  language: string,
  key: number,
  put: PutEvent,
  served: ReturnType<typeof vevents>['events'],
): Promise<RawResponse | null> {
  const byOriginal = new Map<string, number>()
  const failure = await eachMember(dav, key, language, (e) => {
    if (!e.detached && e.start !== null) byOriginal.set(e.start, e.id)
  })
  if (failure) return failure
  const servedOverride = new Map<string, Lines>()
  for (const e of served) {
    if (e.recurrenceId === null) continue
    const original = originalOf(e.recurrenceId)
    const id = servedId(e.lines)
    if (original && id !== null) {
      byOriginal.set(original, id)
      servedOverride.set(original, e.lines)
    }
  }
  for (const { record, lines, extras } of put.overrides) {
    const original = record.occurrenceOf!.original
    const id = byOriginal.get(original)
    if (id === undefined)
      return davError(403, 'c:valid-calendar-object-resource', `No occurrence of the series starts at ${original} (RECURRENCE-ID)`)
    const payload = restBody(record, lines, servedOverride.get(original) ?? null, await venueOf(dav, put, record), organizerOf(put, record))
    delete payload.recurrence
    const extra = encodeExtras(extras)
    if (extra !== null && extra.length > EXTRA_MAX) return davError(403, 'c:max-resource-size', 'Too much besides the event itself to keep')
    // An unchanged value writes nothing (the REST update compares custom values).
    payload.custom_fields = { [EXTRA_FIELD]: extra }
    const answer = await dav.rest.send('POST', `/events/${id}?recurrence_scope=this`, payload)
    if (answer.status !== 200) return restFailure(answer)
  }
  return null
}

export async function deleteObject(dav: Dav, language: string, name: string, ifMatch: string | null): Promise<RawResponse> {
  const denied = readOnly(dav, language)
  if (denied) return denied
  const c = await dav.collection(language)
  const r = c.byName.get(name)
  if (!r) return davError(404, '', 'No such calendar object')
  return dav.atomically(async (inside) => {
    const failed = ifMatch === null ? null : preconditions((await rendered(inside, c, r)).etag, ifMatch, null)
    if (failed) return failed
    const series = r.ids.length > 1 || r.rrule !== null
    const answer = await inside.rest.send('DELETE', `/events/${r.key}${series ? '?recurrence_scope=all' : ''}`)
    if (answer.status !== 200) return restFailure(answer)
    return plain(204)
  })
}
