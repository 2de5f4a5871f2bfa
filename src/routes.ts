/**
 * The route table, in registration order (the order of discovery and /doc). Each route is a
 * regex on the path below the namespace and, per method, the operation whose schema validates
 * the request (the router does it, once, and hands the handler typed input), the handler, the
 * permission gate that runs before the body is even read, and what /doc says it answers.
 */
import { canEditPosts, type Principal } from './auth/principal.js'
import type { Context } from './context.js'
import type { Reply } from './resources/respond.js'
import type { RecordAt, Single } from './resources/record-tag.js'
import type { Input, OpName } from './schemas/index.js'
import type { Params } from './http/params.js'
import type { RepresentationName } from './schemas/responses.js'
import * as events from './resources/events.js'
import * as linked from './resources/venues-organizers.js'
import * as terms from './resources/terms.js'
import * as webhooks from './resources/webhooks.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** What /doc and the gate need to know about an endpoint, besides its operation and handler. */
interface EndpointInfo {
  /** Who may call it at all; checked before the body is read (401/403). */
  gate?: (p: Principal | null) => boolean
  /** For /doc: one line, the success body and status, and the error statuses it may answer. */
  summary: string
  response: RepresentationName | 'object'
  status?: 200 | 201
  errors: number[]
}

export interface Endpoint extends EndpointInfo {
  /** Operation whose parameters validate the request and appear in discovery and /doc. */
  op: OpName
  /**
   * Writes that name an existing record: this operation (the path parameters) is validated
   * first, and `op` only when the handler asks, once it has found and authorised the record,
   * so that a missing record (404) or a refusal (403) answers before a bad body (400).
   */
  target?: OpName
  /** Rewrites the raw parameters before validation (one case: `status=any` of the event list). */
  prepare?: (ctx: Context, params: Params) => Params
  /** Input typed per operation; the table erases it (see `endpoint` and `targeted`). */
  run: (ctx: Context, input: never, fields: never) => Promise<Reply>
}

export interface RouteDef {
  /** WordPress-style pattern shown by discovery, relative to the namespace. */
  pattern: string
  regex: RegExp
  endpoints: Partial<Record<Method, Endpoint>>
  /**
   * Routes of one kind of record (its collection and the record itself): a record of that kind
   * as the caller reads it alone, null when there is none to read. Its strong ETag goes with
   * single reads and write replies, and If-Match on a write is compared with it.
   */
  single?: (ctx: Context, at: RecordAt) => Promise<Single | null>
}

/** A handler of one operation: the router validated `input` with that operation's schema. */
export type Handler<O extends OpName> = (ctx: Context, input: Input<O>) => Promise<Reply>

/** A handler of a write naming a record: `target` is validated; `fields()` validates the rest. */
export type TargetedHandler<T extends OpName, O extends OpName> = (ctx: Context, target: Input<T>, fields: () => Input<O>) => Promise<Reply>

export const endpoint = <O extends OpName>(op: O, run: Handler<O>, info: EndpointInfo & Pick<Endpoint, 'prepare'>): Endpoint => ({
  op,
  run,
  ...info,
})

const targeted = <T extends OpName, O extends OpName>(target: T, op: O, run: TargetedHandler<T, O>, info: EndpointInfo): Endpoint => ({
  op,
  target,
  run,
  ...info,
})

const ID = '(?<id>\\d+)'
const SLUG = '(?<slug>[^/]+)'

export const route = (pattern: string, path: string, endpoints: RouteDef['endpoints'], single?: RouteDef['single']): RouteDef => ({
  pattern,
  regex: new RegExp(`^${path}/*$`, 'i'),
  endpoints,
  ...(single ? { single } : {}),
})

/** The same handler under POST, PUT and PATCH. */
const update = (e: Endpoint) => ({ POST: e, PUT: e, PATCH: e })

const READ_ERRORS = [400, 403, 404]
const WRITE_ERRORS = [400, 401, 403, 404, 413, 415]

/** The resources' routes; the router puts the namespace root and /doc (src/doc/routes.ts) first. */
export function buildRoutes(): RouteDef[] {
  return [
    ...postRoutes({
      type: 'event',
      plural: 'events',
      shape: 'Event',
      noun: 'an event',
      notes: { bySlugUpdate: ' (a body slug renames it)' },
      list: events.listEvents,
      prepareList: events.listParams,
      create: events.createEvent,
      read: events.readEvent,
      update: events.updateEvent,
      remove: events.deleteEvent,
      single: events.eventSingle,
    }),
    ...postRoutes({
      type: 'venue',
      plural: 'venues',
      shape: 'Venue',
      noun: 'a venue',
      notes: linkedNotes,
      ...linkedHandlers('venue'),
    }),
    ...postRoutes({
      type: 'organizer',
      plural: 'organizers',
      shape: 'Organizer',
      noun: 'an organizer',
      notes: linkedNotes,
      ...linkedHandlers('organizer'),
    }),
    ...termRoutes('category', 'categories', 'CategoryList'),
    ...termRoutes('tag', 'tags', 'TagList'),
    ...webhookRoutes(),
  ]
}

/** Webhook endpoints hold signing secrets: administrators only, reads included. */
const isAdministrator = (p: Principal | null) => p?.role === 'administrator'

function webhookRoutes(): RouteDef[] {
  const gate = isAdministrator
  const errors = [400, 401, 403, 404]
  return [
    route('/webhooks', '/webhooks', {
      GET: endpoint('webhookList', webhooks.listWebhooks, {
        gate,
        summary: 'List webhook endpoints',
        response: 'object',
        errors: [401, 403],
      }),
      POST: endpoint('webhookCreate', webhooks.createWebhook, {
        gate,
        summary: 'Create a webhook endpoint (its signing secret is generated)',
        response: 'object',
        status: 201,
        errors,
      }),
    }),
    route('/webhooks/(?P<id>\\d+)', `/webhooks/${ID}`, {
      GET: endpoint('webhookById', webhooks.readWebhook, { gate, summary: 'Read a webhook endpoint', response: 'object', errors }),
      ...update(
        targeted('webhookById', 'webhookUpdate', webhooks.updateWebhook, {
          gate,
          summary: 'Update a webhook endpoint (rotate_secret: a new signing secret)',
          response: 'object',
          errors,
        }),
      ),
      DELETE: endpoint('webhookById', webhooks.deleteWebhook, {
        gate,
        summary: 'Delete a webhook endpoint and its deliveries',
        response: 'object',
        errors,
      }),
    }),
    route('/webhooks/(?P<id>\\d+)/deliveries', `/webhooks/${ID}/deliveries`, {
      GET: endpoint('webhookDeliveries', webhooks.listDeliveries, {
        gate,
        summary: "An endpoint's deliveries, newest first (status, attempts, last answer, next attempt)",
        response: 'object',
        errors,
      }),
    }),
    route('/webhooks/(?P<id>\\d+)/replay', `/webhooks/${ID}/replay`, {
      POST: endpoint('webhookReplay', webhooks.replayDeliveries, {
        gate,
        summary: 'Send a delivery again (delivery), or every delivery since a time (since)',
        response: 'object',
        errors,
      }),
    }),
    route('/webhooks/(?P<id>\\d+)/ping', `/webhooks/${ID}/ping`, {
      POST: endpoint('webhookById', webhooks.pingWebhook, {
        gate,
        summary: 'Send a webhook.ping delivery',
        response: 'object',
        status: 201,
        errors,
      }),
    }),
  ]
}

type PostType = 'event' | 'venue' | 'organizer'

/** One post type's routes: what differs is the handlers and a few words of the summaries. */
interface PostRoutes<T extends PostType> {
  type: T
  plural: string
  shape: 'Event' | 'Venue' | 'Organizer'
  /** With its article, as summaries use it. */
  noun: string
  /** Appended to the create, trash and by-slug update summaries. */
  notes: { create?: string; trash?: string; bySlugUpdate?: string }
  list: Handler<`${T}List`>
  prepareList?: Endpoint['prepare']
  create: Handler<`${T}Create`>
  read: Handler<`${T}ById` | `${T}BySlug`>
  update: TargetedHandler<`${T}ById` | `${T}BySlug`, `${T}Update`>
  remove: Handler<`${T}Delete` | `${T}DeleteBySlug`>
  single: NonNullable<RouteDef['single']>
}

const linkedNotes = { create: ' (always a new record)', trash: ' (unlinks it from events)' }

function linkedHandlers<T extends 'venue' | 'organizer'>(type: T) {
  return {
    list: (c: Context, q: Input<`${T}List`>) => linked.listLinked(c, q, type),
    create: (c: Context, input: Input<`${T}Create`>) => linked.createLinked(c, input, type),
    read: (c: Context, at: Input<`${T}ById` | `${T}BySlug`>) => linked.readLinked(c, at, type),
    update: (c: Context, at: Input<`${T}ById` | `${T}BySlug`>, fields: () => Input<`${T}Update`>) =>
      linked.updateLinked(c, at, fields, type),
    remove: (c: Context, q: Input<`${T}Delete` | `${T}DeleteBySlug`>) => linked.deleteLinked(c, q, type),
    single: (c: Context, at: RecordAt) => linked.linkedSingle(c, at, type),
  }
}

function postRoutes<T extends PostType>(r: PostRoutes<T>): RouteDef[] {
  const { type, plural, shape, noun, notes } = r
  const list = `${shape}List` as const
  const byId = `${type}ById` as const
  const bySlug = `${type}BySlug` as const
  const updateOp = `${type}Update` as const
  return [
    route(
      `/${plural}`,
      `/${plural}`,
      {
        GET: endpoint(`${type}List`, r.list, {
          ...(r.prepareList ? { prepare: r.prepareList } : {}),
          summary: `List ${plural}`,
          response: list,
          errors: [400, 404],
        }),
        POST: endpoint(`${type}Create`, r.create, {
          gate: canEditPosts,
          summary: `Create ${noun}${notes.create ?? ''}`,
          response: shape,
          status: 201,
          errors: WRITE_ERRORS,
        }),
      },
      r.single,
    ),
    route(
      `/${plural}/(?P<id>\\d+)`,
      `/${plural}/${ID}`,
      {
        GET: endpoint(byId, r.read, { summary: `Read ${noun}`, response: shape, errors: READ_ERRORS }),
        DELETE: endpoint(`${type}Delete`, r.remove, {
          gate: canEditPosts,
          summary: `Move ${noun} to the trash${notes.trash ?? ''}, or delete it permanently with force=true`,
          response: shape,
          errors: [...WRITE_ERRORS, 410],
        }),
        ...update(
          targeted(byId, updateOp, r.update, {
            gate: canEditPosts,
            summary: `Update ${noun} (only the fields sent)`,
            response: shape,
            errors: WRITE_ERRORS,
          }),
        ),
      },
      r.single,
    ),
    route(
      `/${plural}/by-slug/(?P<slug>[^/]+)`,
      `/${plural}/by-slug/${SLUG}`,
      {
        GET: endpoint(bySlug, r.read, { summary: `Read ${noun} by slug`, response: shape, errors: READ_ERRORS }),
        DELETE: endpoint(`${type}DeleteBySlug`, r.remove, {
          gate: canEditPosts,
          summary: `Move ${noun} to the trash by slug, or delete it permanently with force=true`,
          response: shape,
          errors: [...WRITE_ERRORS, 410],
        }),
        ...update(
          targeted(bySlug, updateOp, r.update, {
            gate: canEditPosts,
            summary: `Update ${noun} by slug${notes.bySlugUpdate ?? ''}`,
            response: shape,
            errors: WRITE_ERRORS,
          }),
        ),
      },
      r.single,
    ),
  ]
}

function termRoutes(taxonomy: 'category' | 'tag', plural: string, list: RepresentationName): RouteDef[] {
  const gate = terms.termGate(taxonomy)
  const single = (c: Context, at: RecordAt) => terms.termSingle(c, at, taxonomy)
  return [
    route(
      `/${plural}`,
      `/${plural}`,
      {
        GET: endpoint(`${taxonomy}List`, (c, q) => terms.listTerms(c, q, taxonomy), {
          summary: `List ${plural}`,
          response: list,
          errors: [400],
        }),
        POST: endpoint(`${taxonomy}Create`, (c, input) => terms.createTerm(c, input, taxonomy), {
          gate,
          summary: `Create a ${taxonomy}`,
          response: 'Term',
          status: 201,
          errors: WRITE_ERRORS,
        }),
      },
      single,
    ),
    // Terms register their handlers GET, update, DELETE: the Allow header follows that order.
    route(
      `/${plural}/(?P<id>\\d+)`,
      `/${plural}/${ID}`,
      {
        GET: endpoint('termById', (c, at) => terms.readTerm(c, at, taxonomy), {
          summary: `Read a ${taxonomy}`,
          response: 'Term',
          errors: [400],
        }),
        ...update(
          targeted('termById', `${taxonomy}Update`, (c, at, fields) => terms.updateTerm(c, at, fields, taxonomy), {
            gate,
            summary: `Update a ${taxonomy} (only the fields sent)`,
            response: 'Term',
            errors: WRITE_ERRORS,
          }),
        ),
        DELETE: endpoint('termById', (c, at) => terms.deleteTerm(c, at, taxonomy), {
          gate,
          summary: `Delete a ${taxonomy} permanently`,
          response: 'Term',
          errors: [400, 401, 403],
        }),
      },
      single,
    ),
  ]
}
