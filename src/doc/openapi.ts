/**
 * The OpenAPI 3.1 document served at /doc, generated from the route table, the parameter
 * schemas that validate requests and the representation schemas of responses.
 */
import { toJsonSchemaDefs } from '@valibot/to-json-schema'
import type * as v from 'valibot'
import type { Context } from '../context.js'
import type { Endpoint, Method, RouteDef } from '../routes.js'
import type { ParamDef, ParamDefs } from '../schemas/operation.js'
import type { Schemas } from '../schemas/index.js'
import { representations } from '../schemas/responses.js'
import { inputComponents } from '../schemas/inputs.js'
import type { JsonSchema } from '../schemas/wire.js'
import { endpointGroups, endpointParams } from './discovery.js'
import { paramSchema, shownDefault } from './params.js'
import { fieldsFor, type CustomField } from '../custom-fields/declarations.js'
import { shownSchema } from '../schemas/custom-fields.js'

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  400: 'Invalid or missing parameters',
  401: 'Authentication required',
  403: 'Not allowed for this caller',
  404: 'Not found',
  410: 'Already in the trash',
  413: 'Request body too large',
  412: 'If-Match does not match the record as it stands; nothing was written',
  415: 'Unsupported body type',
  503: 'Storage temporarily unavailable (see Retry-After)',
}

const SECURITY_NOTE =
  'A bearer token in `Authorization` is the common case; hosts authenticate callers as they choose ' +
  '(session cookies, API keys, a proxy), so the scheme is a hint for clients, not the only way in.'

/** Counts every list answers in headers, under TEC's and WordPress's names. */
const TOTAL_HEADERS = Object.fromEntries(
  ['X-WP-Total', 'X-WP-TotalPages', 'X-TEC-Total', 'X-TEC-TotalPages'].map((h) => [
    h,
    { description: h.endsWith('Pages') ? 'Number of pages.' : 'Number of matching records.', schema: { type: 'integer', minimum: 0 } },
  ]),
)
const SYNC_HEADER = {
  'X-Sync-Token': {
    description: 'With sync_token, on the last page: the token of the next sync (as `sync_token` in the body).',
    schema: { type: 'string' },
  },
}
const ETAG_HEADER = {
  ETag: { description: 'Weak validator of this representation; send it back in If-None-Match.', schema: { type: 'string' } },
}
const STRONG_ETAG_HEADER = {
  ETag: {
    description: 'Strong validator of the record as this caller reads it alone; send it back in If-None-Match, or in If-Match on a write.',
    schema: { type: 'string' },
  },
}
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } }

/** Request-body properties carry no `default`: code generators read one as "always present". */
function bodyProperty(def: ParamDef, shown: unknown): JsonSchema {
  const { default: _dropped, ...schema } = paramSchema(def)
  const said = shown !== undefined && shown !== null ? ` Default: ${JSON.stringify(shown)}.` : ''
  return { ...schema, description: `${def.description}${said}` }
}

let components: Record<string, JsonSchema> | null = null

/** Response schemas, converted once: they do not depend on the request. */
function componentSchemas(): Record<string, JsonSchema> {
  if (!components) {
    components = toJsonSchemaDefs(representations as unknown as Record<string, v.GenericSchema>, {
      target: 'draft-2020-12',
      errorMode: 'ignore',
      overrideRef: (c) => `#/components/schemas/${c.referenceId}`,
    }) as Record<string, JsonSchema>
  }
  return components
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/**
 * The response schemas with `custom_fields` typed per the host's declarations (the shared
 * components know only TEC's `[]`): events always carry it, venues and organizers when the host
 * declares fields for them.
 */
function withCustomFields(schemas: Record<string, JsonSchema>, fields: readonly CustomField[]): Record<string, JsonSchema> {
  const out = { ...schemas }
  for (const [name, kind] of [
    ['Event', 'event'],
    ['Venue', 'venue'],
    ['Organizer', 'organizer'],
  ] as const) {
    const own = fieldsFor(fields, kind)
    const schema = out[name] as { properties?: Record<string, JsonSchema>; required?: string[] } | undefined
    if (!schema?.properties || (kind !== 'event' && !own.length)) continue
    const required = kind === 'event' || !schema.required ? schema.required : [...schema.required, 'custom_fields']
    out[name] = { ...schema, properties: { ...schema.properties, custom_fields: shownSchema(own) }, ...(required ? { required } : {}) }
  }
  return out
}

/** `/events/(?P<id>\d+)` → `/events/{id}`. */
export const openApiPath = (pattern: string) => pattern.replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}') || '/'

/** `get` + `/events/by-slug/{slug}` → `getEventsBySlug`; `/events/{id}` → `getEventsById`. */
function operationId(method: Method, pattern: string): string {
  const path = openApiPath(pattern)
    .replace('/by-slug/{slug}', '/by-slug')
    .replace(/\{(\w+)\}/g, 'by-$1')
  const words = path.split(/[/-]/).filter(Boolean)
  const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')
  return `${method.toLowerCase()}${name || 'Root'}`
}

function operation(
  route: RouteDef,
  methods: Method[],
  method: Method,
  endpoint: Endpoint,
  schemas: Schemas,
  bodies: Record<string, unknown>,
  now: { local: string },
  /** The language parameter as the request's namespace names it: a query parameter on writes too. */
  languageParam: string,
) {
  const defs = endpointParams(route, endpoint, schemas)
  const write = method === 'POST' || method === 'PUT' || method === 'PATCH'
  // Routes that name one record: their writes take If-Match, their answers carry the strong ETag.
  const record = route.single !== undefined && /\(\?P<(id|slug)>/.test(route.pattern)
  const { parameters, body } = splitParameters(defs, write, languageParam, now)
  parameters.push(...conditionalHeaders(method, record))
  const op: Record<string, unknown> = {
    operationId: operationId(method, route.pattern),
    summary: endpoint.summary,
    tags: [route.pattern.split('/')[1] || 'discovery'],
    parameters,
  }
  if (methods.length > 1 && method !== methods[0]) op.description = `Same as ${methods[0]}.`
  if (write) op.requestBody = requestBody(endpoint, body, bodies, now)
  op.responses = responses(route, endpoint, method, record, 'format' in defs)
  // Gated operations need a caller; reads take one optionally (a signed-in caller may see drafts).
  op.security = endpoint.gate ? [{ bearer: [] }] : [{}, { bearer: [] }]
  return op
}

/** An operation's path and query parameters as OpenAPI lists them, and (on writes) the body's. */
function splitParameters(defs: ParamDefs, write: boolean, languageParam: string, now: { local: string }) {
  const parameters: unknown[] = []
  const body: ParamDefs = {}
  for (const [name, def] of Object.entries(defs)) {
    const location = def.in === 'path' ? 'path' : write && name !== languageParam ? 'body' : 'query'
    if (location === 'body') {
      body[name] = def
      continue
    }
    const shown = shownDefault(def, now)
    const schema: JsonSchema = { ...paramSchema(def), ...(shown !== undefined ? { default: shown } : {}) }
    const list = schema.type === 'array'
    parameters.push({
      name,
      in: location,
      description: def.description,
      required: location === 'path' || def.required === true,
      schema,
      ...(list ? { style: 'form', explode: false } : {}),
    })
  }
  return { parameters, body }
}

/** If-Match on a record's writes, If-None-Match on every read. */
function conditionalHeaders(method: Method, record: boolean): unknown[] {
  if (method === 'GET') {
    return [
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'An ETag from an earlier answer: 304 when it still matches.',
        schema: { type: 'string' },
      },
    ]
  }
  if (!record) return []
  return [
    {
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        'Write only if the record still has this ETag (from a read or an earlier write), or `*`: else 412 and nothing is written.',
      schema: { type: 'string' },
    },
  ]
}

/** A write's request body: a reference to the operation's one body schema, added to `bodies` on first use. */
function requestBody(endpoint: Endpoint, body: ParamDefs, bodies: Record<string, unknown>, now: { local: string }) {
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  for (const [name, def] of Object.entries(body)) {
    properties[name] = bodyProperty(def, shownDefault(def, now))
    if (def.required) required.push(name)
  }
  // One shared body per operation: POST, PUT and PATCH (and JSON and form) point at it.
  if (!bodies[endpoint.op]) {
    bodies[endpoint.op] = { type: 'object', properties, ...(required.length ? { required } : {}) }
  }
  const schema = ref(endpoint.op)
  return {
    required: required.length > 0,
    content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
  }
}

/** What an operation answers: its success (with its headers and media types), 304, 412 and its errors. */
function responses(route: RouteDef, endpoint: Endpoint, method: Method, record: boolean, takesFormat: boolean) {
  const okStatus = endpoint.status ?? 200
  const read = method === 'GET'
  const content: Record<string, unknown> = {
    'application/json': {
      schema: endpoint.response === 'object' ? { type: 'object', additionalProperties: true } : ref(endpoint.response),
    },
  }
  // The operations that take `format` also answer iCalendar (format=ics or Accept: text/calendar).
  if (read && takesFormat) content['text/calendar'] = { schema: { type: 'string', description: 'An RFC 5545 VCALENDAR document.' } }
  const list = endpoint.response.endsWith('List')
  const out: Record<string, unknown> = {
    [okStatus]: {
      description: STATUS_TEXT[okStatus],
      ...(read
        ? { headers: { ...(record ? STRONG_ETAG_HEADER : ETAG_HEADER), ...(list ? { ...TOTAL_HEADERS, ...SYNC_HEADER } : {}) } }
        : {}),
      ...(!read && route.single !== undefined ? { headers: STRONG_ETAG_HEADER } : {}),
      content,
    },
  }
  if (read) {
    out[304] = {
      description: 'Not modified: If-None-Match still matches the current ETag',
      headers: record ? STRONG_ETAG_HEADER : ETAG_HEADER,
    }
  }
  const error = () => ({ content: { 'application/json': { schema: ref('Error') } } })
  if (record && !read) out[412] = { description: STATUS_TEXT[412], ...error() }
  for (const status of endpoint.errors) out[status] = { description: STATUS_TEXT[status] ?? 'Error', ...error() }
  if (endpoint.op !== 'root' && endpoint.op !== 'doc') out[503] = { description: STATUS_TEXT[503], headers: RETRY_AFTER, ...error() }
  return out
}

export function buildOpenApi(ctx: Context, routes: readonly RouteDef[], schemas: Schemas, serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {}
  const bodies: Record<string, unknown> = {}
  for (const route of routes) {
    const item: Record<string, unknown> = {}
    for (const { methods, endpoint } of endpointGroups(route)) {
      for (const method of methods)
        item[method.toLowerCase()] = operation(
          route,
          methods,
          method,
          endpoint,
          schemas,
          bodies,
          { local: ctx.nowLocal },
          ctx.names.languageParam,
        )
    }
    paths[openApiPath(route.pattern)] = item
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Calendar Events REST API',
      version: '1.0.0',
      description:
        'Events, venues, organizers, categories and tags in The Events Calendar REST v1 wire format. ' +
        'Errors use the WordPress envelope {code, message, data: {status}}. Writes need a caller the host authenticates. ' +
        SECURITY_NOTE,
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { ...withCustomFields(componentSchemas(), ctx.options.customFields), ...bodies, ...inputComponents },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: SECURITY_NOTE } },
    },
  }
}
