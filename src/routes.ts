/**
 * The route table, in registration order (the order of discovery and /doc). Each route is a
 * regex on the path below the namespace and, per method, the handler, the permission gate that
 * runs before the body is even read, and what /doc says it answers.
 */
import { canEditPosts, type Principal } from './auth/principal.js'
import type { Context } from './context.js'
import type { Reply } from './resources/respond.js'
import type { Schemas } from './schemas/index.js'
import type { RepresentationName } from './schemas/responses.js'
import * as events from './resources/events.js'
import * as linked from './resources/venues-organizers.js'
import * as terms from './resources/terms.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface Endpoint {
  /** Operation whose parameters validate the request and appear in discovery and /doc. */
  op: keyof Schemas
  run: (ctx: Context, schemas: Schemas) => Promise<Reply>
  /** Who may call it at all; checked before the body is read (401/403). */
  gate?: (p: Principal | null) => boolean
  /** For /doc: one line, the success body and status, and the error statuses it may answer. */
  summary: string
  response: RepresentationName | 'object'
  status?: 200 | 201
  errors: number[]
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

const READ_ERRORS = [400, 403, 404]
const WRITE_ERRORS = [400, 401, 403, 404, 413, 415]

/** The handlers of the namespace root and /doc, which describe the table they are part of. */
export interface DescribingHandlers {
  namespaceIndex: Endpoint['run']
  openApiDocument: Endpoint['run']
}

export function buildRoutes(describe: DescribingHandlers): RouteDef[] {
  return [
    route('', '', {
      GET: {
        op: 'root',
        run: describe.namespaceIndex,
        summary: 'Describe the namespace and its routes',
        response: 'NamespaceIndex',
        errors: [400],
      },
    }),
    route('/doc', '/doc', {
      GET: { op: 'doc', run: describe.openApiDocument, summary: 'This OpenAPI document', response: 'object', errors: [400] },
    }),
    route('/events', '/events', {
      GET: { op: 'eventList', run: events.listEvents, summary: 'List events', response: 'EventList', errors: [400, 404] },
      POST: {
        op: 'eventCreate',
        run: events.createEvent,
        gate: canEditPosts,
        summary: 'Create an event',
        response: 'Event',
        status: 201,
        errors: WRITE_ERRORS,
      },
    }),
    route('/events/(?P<id>\\d+)', `/events/${ID}`, {
      GET: {
        op: 'eventById',
        run: (c, s) => events.readEvent(c, s, false),
        summary: 'Read an event',
        response: 'Event',
        errors: READ_ERRORS,
      },
      DELETE: {
        op: 'eventDelete',
        run: (c, s) => events.deleteEvent(c, s, false),
        gate: canEditPosts,
        summary: 'Move an event to the trash, or delete it permanently with force=true',
        response: 'Event',
        errors: [...WRITE_ERRORS, 410],
      },
      ...update({
        op: 'eventUpdate',
        run: (c, s) => events.updateEvent(c, s, false),
        gate: canEditPosts,
        summary: 'Update an event (only the fields sent)',
        response: 'Event',
        errors: WRITE_ERRORS,
      }),
    }),
    route('/events/by-slug/(?P<slug>[^/]+)', `/events/by-slug/${SLUG}`, {
      GET: {
        op: 'eventBySlug',
        run: (c, s) => events.readEvent(c, s, true),
        summary: 'Read an event by slug',
        response: 'Event',
        errors: READ_ERRORS,
      },
      DELETE: {
        op: 'eventDeleteBySlug',
        run: (c, s) => events.deleteEvent(c, s, true),
        gate: canEditPosts,
        summary: 'Move an event to the trash by slug, or delete it permanently with force=true',
        response: 'Event',
        errors: [...WRITE_ERRORS, 410],
      },
      ...update({
        op: 'eventUpdate',
        run: (c, s) => events.updateEvent(c, s, true),
        gate: canEditPosts,
        summary: 'Update an event by slug (a body slug renames it)',
        response: 'Event',
        errors: WRITE_ERRORS,
      }),
    }),
    ...linkedRoutes('venue', 'venues', 'Venue'),
    ...linkedRoutes('organizer', 'organizers', 'Organizer'),
    ...termRoutes('category', 'categories', 'CategoryList'),
    ...termRoutes('tag', 'tags', 'TagList'),
  ]
}

function linkedRoutes(type: 'venue' | 'organizer', plural: string, shape: 'Venue' | 'Organizer'): RouteDef[] {
  const op = (suffix: 'List' | 'Create' | 'Update' | 'ById' | 'BySlug' | 'Delete' | 'DeleteBySlug') => `${type}${suffix}` as keyof Schemas
  const list = `${shape}List` as RepresentationName
  return [
    route(`/${plural}`, `/${plural}`, {
      GET: { op: op('List'), run: (c, s) => linked.listLinked(c, s, type), summary: `List ${plural}`, response: list, errors: [400, 404] },
      POST: {
        op: op('Create'),
        run: (c, s) => linked.createLinked(c, s, type),
        gate: canEditPosts,
        summary: `Create a ${type} (always a new record)`,
        response: shape,
        status: 201,
        errors: WRITE_ERRORS,
      },
    }),
    route(`/${plural}/(?P<id>\\d+)`, `/${plural}/${ID}`, {
      GET: {
        op: op('ById'),
        run: (c, s) => linked.readLinked(c, s, type, false),
        summary: `Read a ${type}`,
        response: shape,
        errors: READ_ERRORS,
      },
      DELETE: {
        op: op('Delete'),
        run: (c, s) => linked.deleteLinked(c, s, type, false),
        gate: canEditPosts,
        summary: `Move a ${type} to the trash (unlinks it from events), or delete it permanently with force=true`,
        response: shape,
        errors: [...WRITE_ERRORS, 410],
      },
      ...update({
        op: op('Update'),
        run: (c, s) => linked.updateLinked(c, s, type, false),
        gate: canEditPosts,
        summary: `Update a ${type} (only the fields sent)`,
        response: shape,
        errors: WRITE_ERRORS,
      }),
    }),
    route(`/${plural}/by-slug/(?P<slug>[^/]+)`, `/${plural}/by-slug/${SLUG}`, {
      GET: {
        op: op('BySlug'),
        run: (c, s) => linked.readLinked(c, s, type, true),
        summary: `Read a ${type} by slug`,
        response: shape,
        errors: READ_ERRORS,
      },
      DELETE: {
        op: op('DeleteBySlug'),
        run: (c, s) => linked.deleteLinked(c, s, type, true),
        gate: canEditPosts,
        summary: `Move a ${type} to the trash by slug, or delete it permanently with force=true`,
        response: shape,
        errors: [...WRITE_ERRORS, 410],
      },
      ...update({
        op: op('Update'),
        run: (c, s) => linked.updateLinked(c, s, type, true),
        gate: canEditPosts,
        summary: `Update a ${type} by slug`,
        response: shape,
        errors: WRITE_ERRORS,
      }),
    }),
  ]
}

function termRoutes(taxonomy: 'category' | 'tag', plural: string, list: RepresentationName): RouteDef[] {
  const gate = terms.termGate(taxonomy)
  return [
    route(`/${plural}`, `/${plural}`, {
      GET: {
        op: `${taxonomy}List`,
        run: (c, s) => terms.listTerms(c, s, taxonomy),
        summary: `List ${plural}`,
        response: list,
        errors: [400],
      },
      POST: {
        op: `${taxonomy}Create`,
        run: (c, s) => terms.createTerm(c, s, taxonomy),
        gate,
        summary: `Create a ${taxonomy}`,
        response: 'Term',
        status: 201,
        errors: WRITE_ERRORS,
      },
    }),
    // Terms register their handlers GET, update, DELETE: the Allow header follows that order.
    route(`/${plural}/(?P<id>\\d+)`, `/${plural}/${ID}`, {
      GET: {
        op: 'termById',
        run: (c, s) => terms.readTerm(c, s, taxonomy),
        summary: `Read a ${taxonomy}`,
        response: 'Term',
        errors: [400],
      },
      ...update({
        op: `${taxonomy}Update`,
        run: (c, s) => terms.updateTerm(c, s, taxonomy),
        gate,
        summary: `Update a ${taxonomy} (only the fields sent)`,
        response: 'Term',
        errors: WRITE_ERRORS,
      }),
      DELETE: {
        op: 'termById',
        run: (c, s) => terms.deleteTerm(c, s, taxonomy),
        gate,
        summary: `Delete a ${taxonomy} permanently`,
        response: 'Term',
        errors: [400, 401, 403],
      },
    }),
  ]
}
