/**
 * The route table, in registration order (the order of discovery and /doc). Each route is a
 * regex on the path below the namespace and, per method, the handler and the permission gate
 * that runs before the body is even read.
 */
import { canEditPosts, type Principal } from './auth/principal.js'
import type { Context } from './resources/context.js'
import type { Reply } from './resources/respond.js'
import type { Schemas } from './schemas/index.js'
import * as events from './resources/events.js'
import * as linked from './resources/linked.js'
import * as terms from './resources/terms.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface Endpoint {
  /** Operation whose parameters discovery and /doc show. */
  op: keyof Schemas
  run: (ctx: Context, schemas: Schemas) => Promise<Reply>
  /** Who may call it at all; checked before the body is read (401/403). */
  gate?: (p: Principal | null) => boolean
}

export interface RouteDef {
  /** WordPress-style pattern shown by discovery, relative to the namespace. */
  pattern: string
  regex: RegExp
  endpoints: Partial<Record<Method, Endpoint>>
}

const ID = '(?<id>\\d+)'
const SLUG = '(?<slug>[^/]+)'

const route = (pattern: string, path: string, endpoints: RouteDef['endpoints']): RouteDef => ({
  pattern,
  regex: new RegExp(`^${path}/*$`, 'i'),
  endpoints,
})

/** The same handler under POST, PUT and PATCH. */
const update = (e: Endpoint) => ({ POST: e, PUT: e, PATCH: e })

export function buildRoutes(): RouteDef[] {
  return [
    route('/events', '/events', {
      GET: { op: 'eventList', run: events.listEvents },
      POST: { op: 'eventCreate', run: events.createEvent, gate: canEditPosts },
    }),
    route('/events/(?P<id>\\d+)', `/events/${ID}`, {
      GET: { op: 'eventById', run: (c, s) => events.readEvent(c, s, false) },
      DELETE: { op: 'eventById', run: (c, s) => events.deleteEvent(c, s, false), gate: canEditPosts },
      ...update({ op: 'eventUpdate', run: (c, s) => events.updateEvent(c, s, false), gate: canEditPosts }),
    }),
    route('/events/by-slug/(?P<slug>[^/]+)', `/events/by-slug/${SLUG}`, {
      GET: { op: 'eventBySlug', run: (c, s) => events.readEvent(c, s, true) },
      DELETE: { op: 'eventBySlug', run: (c, s) => events.deleteEvent(c, s, true), gate: canEditPosts },
      ...update({ op: 'eventUpdate', run: (c, s) => events.updateEvent(c, s, true), gate: canEditPosts }),
    }),
    ...linkedRoutes('venue', 'venues'),
    ...linkedRoutes('organizer', 'organizers'),
    ...termRoutes('category', 'categories'),
    ...termRoutes('tag', 'tags'),
  ]
}

function linkedRoutes(type: 'venue' | 'organizer', plural: string): RouteDef[] {
  const op = <S extends string>(suffix: S) => `${type}${suffix}` as keyof Schemas
  return [
    route(`/${plural}`, `/${plural}`, {
      GET: { op: op('List'), run: (c, s) => linked.listLinked(c, s, type) },
      POST: { op: op('Create'), run: (c, s) => linked.createLinked(c, s, type), gate: canEditPosts },
    }),
    route(`/${plural}/(?P<id>\\d+)`, `/${plural}/${ID}`, {
      GET: { op: op('ById'), run: (c, s) => linked.readLinked(c, s, type, false) },
      DELETE: { op: op('ById'), run: (c, s) => linked.deleteLinked(c, s, type, false), gate: canEditPosts },
      ...update({ op: op('Update'), run: (c, s) => linked.updateLinked(c, s, type, false), gate: canEditPosts }),
    }),
    route(`/${plural}/by-slug/(?P<slug>[^/]+)`, `/${plural}/by-slug/${SLUG}`, {
      GET: { op: op('BySlug'), run: (c, s) => linked.readLinked(c, s, type, true) },
      DELETE: { op: op('BySlug'), run: (c, s) => linked.deleteLinked(c, s, type, true), gate: canEditPosts },
      ...update({ op: op('Update'), run: (c, s) => linked.updateLinked(c, s, type, true), gate: canEditPosts }),
    }),
  ]
}

function termRoutes(taxonomy: 'category' | 'tag', plural: string): RouteDef[] {
  const gate = terms.termGate(taxonomy)
  return [
    route(`/${plural}`, `/${plural}`, {
      GET: { op: `${taxonomy}List`, run: (c, s) => terms.listTerms(c, s, taxonomy) },
      POST: { op: `${taxonomy}Create`, run: (c, s) => terms.createTerm(c, s, taxonomy), gate },
    }),
    // Terms register their handlers GET, update, DELETE: the Allow header follows that order.
    route(`/${plural}/(?P<id>\\d+)`, `/${plural}/${ID}`, {
      GET: { op: 'termById', run: (c, s) => terms.readTerm(c, s, taxonomy) },
      ...update({ op: `${taxonomy}Update`, run: (c, s) => terms.updateTerm(c, s, taxonomy), gate }),
      DELETE: { op: 'termById', run: (c, s) => terms.deleteTerm(c, s, taxonomy), gate },
    }),
  ]
}
