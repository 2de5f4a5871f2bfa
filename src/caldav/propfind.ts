/** PROPFIND (RFC 4918 §9.1) on the root, the principal, the calendar home, a calendar or an object. */
import type { RawResponse } from '../http/types.js'
import { objectPath, etagOf, type Dav } from './context.js'
import { davError, multistatus, propResponse } from './multistatus.js'
import { ALLPROP, propXml, type PropName, type Target } from './props.js'
import { ALL, categoryCalendar, listQuery, type Collection, type Resource } from './store.js'
import { listAt, numberAt, textAt } from './answers.js'
import { CALDAV, DAV, XmlError, child, parseXml, tag } from './xml.js'

/** The property names a PROPFIND body asks for; null for `allprop` (or an empty body). */
export function requestedProps(body: string): PropName[] | null {
  if (body.trim() === '') return null
  const root = parseXml(body)
  if (root.ns !== DAV || root.name !== 'propfind') throw new XmlError('the body is not a DAV:propfind')
  const prop = child(root, DAV, 'prop')
  if (prop) return prop.children.map((c) => ({ ns: c.ns, name: c.name }))
  return null
}

/**
 * The calendars the home lists: the calendar of every language first, then, on a site where the
 * caller sees events of more than one language, one per such language (the default one first).
 * A site of one language has one calendar: a second would only repeat it.
 */
export async function shownCalendars(dav: Dav): Promise<string[]> {
  const { defaultLanguage, languages } = dav.options
  const ordered = [defaultLanguage, ...languages.filter((l) => l !== defaultLanguage)]
  const withEvents = await Promise.all(
    ordered.map(async (l) => {
      const answer = await dav.rest.send('GET', `/events?sync_token=*&per_page=1&${listQuery(l, dav.canWrite)}`)
      return answer.status === 200 && listAt(answer.json, 'events').length > 0 ? l : null
    }),
  )
  const used = withEvents.filter((l): l is string => l !== null)
  const categories: string[] = []
  for (const l of used) categories.push(...(await usedCategories(dav, l)))
  return [ALL, ...(used.length > 1 ? used : []), ...categories]
}

/** Categories shown as read-only calendars, per language: the first 100 (by name) that events use. */
async function usedCategories(dav: Dav, language: string): Promise<string[]> {
  const answer = await dav.rest.send('GET', `/categories?per_page=100&hide_empty=1&multilingual_language=${encodeURIComponent(language)}`)
  if (answer.status !== 200) return []
  const terms = listAt(answer.json, 'categories').flatMap((t) => {
    const [id, name] = [numberAt(t, 'id'), textAt(t, 'name')]
    return id === null ? [] : [{ id, name: name ?? '' }]
  })
  terms.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id))
  return terms.map((t) => categoryCalendar(language, t.id))
}

function responseFor(dav: Dav, href: string, target: Target, props: PropName[] | null): string {
  const found: string[] = []
  const missing: string[] = []
  for (const p of props ?? ALLPROP) {
    const xml = propXml(dav, target, p)
    if (xml !== null) found.push(xml)
    else if (props) missing.push(tag(p.ns, p.name))
  }
  return propResponse(href, found, missing)
}

/** What of an object's text a request needs: nothing, its ETag, or the text itself. */
export type Need = 'none' | 'etag' | 'text'

/**
 * Object targets of these resources, rendered only when a property needs their text, or their
 * ETag when it is not known from an earlier render of the same resource (Dav.knownEtag).
 */
export async function objectTargets(dav: Dav, c: Collection, resources: Resource[], need: Need): Promise<Target[]> {
  const unknown = need === 'text' ? resources : need === 'etag' ? resources.filter((r) => dav.knownEtag(r) === undefined) : []
  const texts = unknown.length ? await dav.render(c, unknown) : new Map<number, string>()
  return resources.map((resource) => {
    const text = texts.get(resource.key)
    const etag = need === 'none' ? '' : text !== undefined ? etagOf(text) : (dav.knownEtag(resource) ?? etagOf(''))
    return { kind: 'object', collection: c, resource, text: text ?? '', etag }
  })
}

/** What a request for these properties needs of its objects' text. */
export function needOf(props: PropName[] | null): Need {
  if (props === null) return 'text'
  if (props.some((p) => (p.ns === DAV && p.name === 'getcontentlength') || (p.ns === CALDAV && p.name === 'calendar-data'))) return 'text'
  return props.some((p) => p.ns === DAV && p.name === 'getetag') ? 'etag' : 'none'
}

export type Place =
  { kind: 'root' | 'principal' | 'home' } | { kind: 'calendar'; language: string } | { kind: 'object'; language: string; name: string }

export async function propfind(dav: Dav, place: Place, depth: string, body: string, path: string): Promise<RawResponse> {
  if (depth !== '0' && depth !== '1') return davError(403, 'd:propfind-finite-depth', 'Depth must be 0 or 1')
  const props = requestedProps(body)
  const responses: string[] = []
  if (place.kind === 'object') {
    const c = await dav.collection(place.language)
    const r = c.byName.get(place.name)
    if (!r) return davError(404, '', 'No such calendar object')
    const [t] = await objectTargets(dav, c, [r], needOf(props))
    return multistatus([responseFor(dav, path, t!, props)])
  }
  if (place.kind === 'calendar') {
    const c = await dav.collection(place.language)
    responses.push(responseFor(dav, dav.calendarPath(c.language), { kind: 'calendar', collection: c }, props))
    if (depth === '1') {
      for (const t of await objectTargets(dav, c, c.resources, needOf(props))) {
        if (t.kind === 'object') responses.push(responseFor(dav, objectPath(dav, c, t.resource), t, props))
      }
    }
    return multistatus(responses)
  }
  const self = place.kind === 'root' ? `${dav.root}/` : place.kind === 'principal' ? dav.principalPath : dav.homePath
  responses.push(responseFor(dav, self, { kind: place.kind }, props))
  if (depth === '1' && place.kind === 'root') {
    responses.push(responseFor(dav, dav.principalPath, { kind: 'principal' }, props))
    responses.push(responseFor(dav, dav.homePath, { kind: 'home' }, props))
  }
  if (depth === '1' && place.kind === 'home') {
    for (const language of await shownCalendars(dav)) {
      const c = await dav.collection(language)
      responses.push(responseFor(dav, dav.calendarPath(language), { kind: 'calendar', collection: c }, props))
    }
  }
  return multistatus(responses)
}
