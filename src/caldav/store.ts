/**
 * A calendar collection as calendar objects: the events of one language the caller may see, read
 * with the REST full sync (`sync_token=*`, docs/sync.md), grouped into resources (a lone event,
 * or a whole series: one resource, one UID), and their iCalendar text from the REST feed.
 *
 * A resource's UID and name are those a calendar app gave it (the `caldav_uid` and `caldav_name`
 * custom fields, written by PUT); an event made elsewhere has the feed's UID `{id}@{host}` and is
 * named after it.
 */
import type { Rest } from './api.js'
import { splitFeed, type FeedParts } from './ics-out.js'

export interface Resource {
  /** The event id, or the series id (its first occurrence) for a series. */
  key: number
  /** Every event of the resource: the event, or the series' occurrences in order. */
  ids: number[]
  uid: string
  /** The last path segment, `{name}.ics` (unescaped). */
  name: string
  /** Set when the UID is the feed's own (`{id}@{host}`): the feed's text needs no UID rewrite. */
  ownUid: boolean
  /** The series rule as REST shows it (the feed ends a series where its stored occurrences end). */
  rrule: string | null
  title: string
}

export interface Collection {
  language: string
  resources: Resource[]
  byName: Map<string, Resource>
  byKey: Map<number, Resource>
  byUid: Map<string, Resource>
  /** The REST sync token of the moment the collection was read. */
  token: string
}

/** The REST list parameters of the collection: every status the caller may see, this language. */
export function listQuery(language: string, canEdit: boolean): string {
  return `multilingual_language=${encodeURIComponent(language)}${canEdit ? '&status=any' : ''}`
}

/** Resource names this server makes from a UID: printable ASCII but what needs escaping in a URL or XML. */
export const nameOf = (uid: string) => uid.replace(/[^A-Za-z0-9@._~+-]/g, (c) => encodeURIComponent(c))

const customValue = (e: any, key: string): string | null => {
  const v = e?.custom_fields?.[key]?.value
  return typeof v === 'string' && v !== '' ? v : null
}

/** Groups the events of a sync into resources (series members under their series). */
export function group(events: any[], host: string): { resources: Resource[] } {
  const byKey = new Map<number, Resource>()
  const heads = new Map<number, any>()
  for (const e of events) {
    const key = e.series?.id ?? e.id
    if (e.id === key) heads.set(key, e)
    let r = byKey.get(key)
    if (!r) {
      r = { key, ids: [], uid: '', name: '', ownUid: true, rrule: null, title: e.title ?? '' }
      byKey.set(key, r)
    }
    r.ids.push(e.id)
    if (e.recurrence?.rrule) r.rrule = e.recurrence.rrule
  }
  for (const r of byKey.values()) {
    const head = heads.get(r.key)
    const uid = head ? customValue(head, 'caldav_uid') : null
    r.uid = uid ?? `${r.key}@${host}`
    r.ownUid = uid === null
    r.name = (head ? customValue(head, 'caldav_name') : null) ?? `${nameOf(r.uid)}.ics`
    if (head) r.title = head.title ?? r.title
  }
  return { resources: [...byKey.values()].sort((a, b) => a.key - b.key) }
}

/**
 * The next page of a REST sync: its `next_rest_url`, with the language as the first request gave
 * it (the link leaves out the default language, and the token's fingerprint then differs).
 */
export function continuation(rest: Rest, next: string, language: string): string {
  const path = rest.below(next)
  return /[?&]multilingual_language=/.test(path) ? path : `${path}&multilingual_language=${encodeURIComponent(language)}`
}

/** Reads the whole collection through the REST full sync. */
export async function readCollection(rest: Rest, language: string, canEdit: boolean, host: string): Promise<Collection> {
  const events: any[] = []
  let path: string | null = `/events?sync_token=*&per_page=100&${listQuery(language, canEdit)}`
  let token = ''
  while (path) {
    const answer = await rest.send('GET', path)
    if (answer.status !== 200) throw new Error(`calendar-events-router: the REST sync answered ${answer.status}`)
    events.push(...answer.json.events)
    const next: string | undefined = answer.json.next_rest_url
    if (next) path = continuation(rest, next, language)
    else {
      token = answer.json.sync_token
      path = null
    }
  }
  const { resources } = group(events, host)
  return {
    language,
    resources,
    byName: new Map(resources.map((r) => [r.name, r])),
    byKey: new Map(resources.map((r) => [r.key, r])),
    byUid: new Map(resources.map((r) => [r.uid, r])),
    token,
  }
}

/** The REST feed can name at most this many events at once (`include`). */
const INCLUDE_MAX = 500

/** The iCalendar text of each resource, from the REST feed of their events (a few requests). */
export async function renderResources(
  rest: Rest,
  c: Collection,
  canEdit: boolean,
  resources: Resource[],
  extrasOf: (ids: number[]) => Promise<ReadonlyMap<number, string[]>>,
): Promise<Map<number, string>> {
  const out = new Map<number, string>()
  let batch: Resource[] = []
  let size = 0
  const flush = async () => {
    if (!batch.length) return
    const ids = batch.flatMap((r) => r.ids.slice(0, INCLUDE_MAX))
    const answer = await rest.send('GET', `/events?format=ics&include=${ids.join(',')}&${listQuery(c.language, canEdit)}`)
    if (answer.status !== 200) throw new Error(`calendar-events-router: the REST feed answered ${answer.status}`)
    const parts: FeedParts = splitFeed(answer.text)
    const extras = await extrasOf(batch.flatMap((r) => parts.idsOf(r)))
    for (const r of batch) out.set(r.key, parts.resource(r, extras))
    batch = []
    size = 0
  }
  for (const r of resources) {
    const n = Math.min(r.ids.length, INCLUDE_MAX)
    if (size + n > INCLUDE_MAX) await flush()
    batch.push(r)
    size += n
  }
  await flush()
  return out
}
