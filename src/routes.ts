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
  ]
}
