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
import type { Resource } from './resource.js'
export type { Resource } from './resource.js'
import { splitFeed, type FeedParts } from './ics-out.js'
import { DateIndex } from './date-index.js'
import { at, keyOf, syncPage, textAt, type EventFacts } from './answers.js'

export interface Collection {
  /** The calendar's path segment: a language, ALL, or a category's (categoryOf). */
  language: string
  /** A category's calendar: the category's name (its calendars are read-only); null otherwise. */
  category: string | null
  /** The languages it shows: its own, or every one for ALL. */
  languages: string[]
  resources: Resource[]
  byName: Map<string, Resource>
  byKey: Map<number, Resource>
  byUid: Map<string, Resource>
  /** The REST sync token of each language, of the moment the collection was read. */
  tokens: Record<string, string>
  /** The calendar's sync token (packToken). */
  token: string
  /** Its resources by date (built on first use, once per collection). */
  dates(): DateIndex
}

/** The calendar of every language, listed first. */
export const ALL = 'all'

/** The languages a calendar shows. */
export const languagesOf = (calendar: string, languages: readonly string[]): string[] => (calendar === ALL ? [...languages] : [calendar])

/** One sync token for a calendar: the REST token of its language, or of each of its languages. */
export function packToken(calendar: string, tokens: Record<string, string>): string {
  if (calendar !== ALL) return tokens[calendar] ?? ''
  return `m.${btoa(JSON.stringify(tokens)).replace(/=+$/, '')}`
}

/** The REST token of each language of a calendar's token; null when it is not one. */
export function unpackToken(calendar: string, token: string, languages: readonly string[]): Record<string, string> | null {
  if (calendar !== ALL) return { [calendar]: token }
  if (!token.startsWith('m.')) return null
  let parsed: unknown
  try {
    parsed = JSON.parse(atob(token.slice(2)))
  } catch (error) {
    // Not a token of ours (its text is not base64 JSON): the caller answers valid-sync-token.
    if (error instanceof SyntaxError || (error instanceof DOMException && error.name === 'InvalidCharacterError')) return null
    throw error
  }
  if (typeof parsed !== 'object' || parsed === null) return null
  const out: Record<string, string> = {}
  for (const l of languages) {
    const t = (parsed as Record<string, unknown>)[l]
    if (typeof t !== 'string') return null
    out[l] = t
  }
  return out
}

/**
 * A category's calendar: the segment `{language}-category-{id}` (a category is a term of one
 * language). Its lists are that language's, filtered by the category.
 */
export function categoryOf(calendar: string): { language: string; id: number } | null {
  const m = /^(.+)-category-([1-9][0-9]{0,14})$/.exec(calendar)
  return m ? { language: m[1]!, id: Number(m[2]) } : null
}

export const categoryCalendar = (language: string, id: number) => `${language}-category-${id}`

/** A calendar the site does not have (an unknown category): answered 404. */
export class NoSuchCalendar extends Error {}

/**
 * The REST list parameters of a calendar's list (`scope`: a language, or a category's calendar):
 * every status the caller may see, that language, that category.
 */
export function listQuery(scope: string, canEdit: boolean): string {
  const category = categoryOf(scope)
  const language = category ? category.language : scope
  return `multilingual_language=${encodeURIComponent(language)}${category ? `&categories=${category.id}` : ''}${canEdit ? '&status=any' : ''}`
}

/** A category calendar's category name, read as the caller; NoSuchCalendar when there is none. */
export async function categoryName(rest: Rest, calendar: string): Promise<string | null> {
  const category = categoryOf(calendar)
  if (!category) return null
  const answer = await rest.send('GET', `/categories/${category.id}?multilingual_language=${encodeURIComponent(category.language)}`)
  if (answer.status === 404 || answer.status === 400) throw new NoSuchCalendar(`No category ${category.id}`)
  if (answer.status !== 200) throw new Error(`calendar-events-router: the REST category read answered ${answer.status}`)
  // A category of another language than the segment says: not a calendar either.
  const language = at(answer.json, 'language')
  if (language !== undefined && language !== category.language) throw new NoSuchCalendar('Another language')
  return textAt(answer.json, 'name') ?? ''
}

/** Resource names this server makes from a UID: printable ASCII but what needs escaping in a URL or XML. */
export const nameOf = (uid: string) => uid.replace(/[^A-Za-z0-9@._~+-]/g, (c) => encodeURIComponent(c))

/** Groups the events of a sync into resources (series members under their series). */
export function group(events: readonly EventFacts[], host: string, language: string): { resources: Resource[] } {
  const byKey = new Map<number, Resource>()
  const heads = new Map<number, EventFacts>()
  const position = new Map<number, number>()
  for (const e of events) {
    const key = keyOf(e)
    if (e.id === key) heads.set(key, e)
    let r = byKey.get(key)
    if (!r) {
      r = { key, ids: [], edited: [], spans: [], uid: '', name: '', ownUid: true, rrule: null, title: e.title, language }
      byKey.set(key, r)
    }
    r.ids.push(e.id)
    if (e.detached) r.edited.push(e.id)
    if (e.utcStart !== null && e.utcEnd !== null) r.spans.push([e.utcStart, e.utcEnd])
    position.set(e.id, e.position)
    if (e.rrule) r.rrule = e.rrule
  }
  for (const r of byKey.values()) {
    // In series order: a series' first 500 occurrences are its first part (renderResources).
    if (r.ids.length > 1) r.ids.sort((a, b) => position.get(a)! - position.get(b)!)
    const head = heads.get(r.key)
    const uid = head?.caldavUid ?? null
    r.uid = uid ?? `${r.key}@${host}`
    r.ownUid = uid === null
    r.name = head?.caldavName ?? `${nameOf(r.uid)}.ics`
    if (head) r.title = head.title
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

/** The events of one language through the REST full sync, and the token after them. */
async function readLanguage(rest: Rest, language: string, canEdit: boolean): Promise<{ events: EventFacts[]; token: string }> {
  const events: EventFacts[] = []
  let path: string | null = `/events?sync_token=*&per_page=100&${listQuery(language, canEdit)}`
  for (;;) {
    const answer = await rest.send('GET', path)
    if (answer.status !== 200) throw new Error(`calendar-events-router: the REST sync answered ${answer.status}`)
    const page = syncPage(answer.json)
    for (const e of page.events) events.push(e)
    if (!page.next) return { events, token: page.token }
    path = continuation(rest, page.next, language)
  }
}

/** A collection made of its resources (in calendar order) and the REST token of each language. */
export function collectionOf(
  calendar: string,
  category: string | null,
  languages: string[],
  resources: Resource[],
  tokens: Record<string, string>,
): Collection {
  let dates: DateIndex | undefined
  return {
    language: calendar,
    category,
    languages,
    resources,
    byName: new Map(resources.map((r) => [r.name, r])),
    byKey: new Map(resources.map((r) => [r.key, r])),
    byUid: new Map(resources.map((r) => [r.uid, r])),
    tokens,
    token: packToken(calendar, tokens),
    dates: () => (dates ??= new DateIndex(resources)),
  }
}

/**
 * Reads a whole calendar (`calendar`: a language or ALL) through the REST full sync; `seen` is
 * given each language's events as read (the cache keeps them to follow later changes).
 */
export async function readCollection(
  rest: Rest,
  calendar: string,
  languages: readonly string[],
  canEdit: boolean,
  host: string,
  seen: (events: EventFacts[], language: string) => void = () => {},
): Promise<Collection> {
  const resources: Resource[] = []
  const tokens: Record<string, string> = {}
  const category = await categoryName(rest, calendar)
  const shown = languagesOf(calendar, languages)
  for (const language of shown) {
    const { events, token } = await readLanguage(rest, language, canEdit)
    tokens[language] = token
    seen(events, language)
    resources.push(...group(events, host, language).resources)
  }
  return collectionOf(calendar, category, shown, resources, tokens)
}

/** The REST feed can name at most this many events at once (`include`). */
const INCLUDE_MAX = 500

/** One REST feed request for these events of one language, split by component. */
async function feedOf(rest: Rest, ids: number[], language: string, canEdit: boolean): Promise<FeedParts> {
  const answer = await rest.send('GET', `/events?format=ics&include=${ids.join(',')}&${listQuery(language, canEdit)}`)
  if (answer.status !== 200) throw new Error(`calendar-events-router: the REST feed answered ${answer.status}`)
  return splitFeed(answer.text)
}

/**
 * A series of more than INCLUDE_MAX occurrences: its master from a feed of its first ones (in
 * series order, so no occurrence before the last of them is missing and taken for an exclusion;
 * the RRULE is the stored one, not cut there), then its later occurrences edited on their own
 * from feeds of those alone.
 */
async function renderLarge(
  rest: Rest,
  r: Resource,
  canEdit: boolean,
  extrasOf: (ids: number[]) => Promise<ReadonlyMap<number, string[]>>,
): Promise<string> {
  const first = r.ids.slice(0, INCLUDE_MAX)
  const head = await feedOf(rest, first, r.language, canEdit)
  const inFirst = new Set(first)
  const later = r.edited.filter((id) => !inFirst.has(id))
  const more: FeedParts[] = []
  for (let i = 0; i < later.length; i += INCLUDE_MAX) more.push(await feedOf(rest, later.slice(i, i + INCLUDE_MAX), r.language, canEdit))
  const extras = await extrasOf([...head.idsOf(r), ...more.flatMap((p) => p.idsOf(r))])
  const text = head.resource(r, extras)
  const overrides = more.flatMap((p) => p.overrides(r, extras))
  if (!overrides.length) return text
  const end = text.lastIndexOf('END:VCALENDAR')
  return `${text.slice(0, end)}${overrides.join('\r\n')}\r\n${text.slice(end)}`
}

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
    const parts = await feedOf(
      rest,
      batch.flatMap((r) => r.ids),
      batch[0]!.language,
      canEdit,
    )
    const extras = await extrasOf(batch.flatMap((r) => parts.idsOf(r)))
    for (const r of batch) out.set(r.key, parts.resource(r, extras))
    batch = []
    size = 0
  }
  // A feed request is of one language: the resources go by language.
  const ordered = [...resources].sort((a, b) => (a.language < b.language ? -1 : a.language > b.language ? 1 : 0))
  for (const r of ordered) {
    if (r.ids.length > INCLUDE_MAX) {
      out.set(r.key, await renderLarge(rest, r, canEdit, extrasOf))
      continue
    }
    if (size + r.ids.length > INCLUDE_MAX || (batch.length && batch[0]!.language !== r.language)) await flush()
    batch.push(r)
    size += r.ids.length
  }
  await flush()
  return out
}
