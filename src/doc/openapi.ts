/**
 * The OpenAPI 3.1 document served at /doc, generated from the route table, the parameter
 * schemas that validate requests and the representation schemas of responses.
 */
import { toJsonSchemaDefs } from '@valibot/to-json-schema'
import type * as v from 'valibot'
import type { Context } from '../resources/context.js'
import type { Endpoint, Method, RouteDef } from '../routes.js'
import type { ParamDefs } from '../schemas/operation.js'
import type { Schemas } from '../schemas/index.js'
import { representations } from '../schemas/representations.js'
import type { JsonSchema } from '../schemas/wire.js'
import { endpointGroups, endpointParams } from './discovery.js'
import { paramSchema, shownDefault } from './params.js'

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  400: 'Invalid or missing parameters',
  401: 'Authentication required',
  403: 'Not allowed for this caller',
  404: 'Not found',
  410: 'Already in the trash',
  413: 'Request body too large',
  415: 'Unsupported body type',
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

/** `/events/(?P<id>\d+)` → `/events/{id}`. */
export const openApiPath = (pattern: string) => pattern.replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}') || '/'

/** `get` + `/events/by-slug/{slug}` → `getEventsBySlug`; `/events/{id}` → `getEventsById`. */
function operationId(method: Method, pattern: string): string {
  const path = openApiPath(pattern).replace('/by-slug/{slug}', '/by-slug').replace(/\{(\w+)\}/g, 'by-$1')
  const words = path.split(/[/-]/).filter(Boolean)
  const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')
  return `${method.toLowerCase()}${name || 'Root'}`
}

function operation(route: RouteDef, methods: Method[], method: Method, endpoint: Endpoint, schemas: Schemas, bodies: Record<string, unknown>, now: { local: string }) {
  const defs = endpointParams(route, endpoint, schemas)
  const write = method === 'POST' || method === 'PUT' || method === 'PATCH'
  const parameters: unknown[] = []
  const body: ParamDefs = {}
  for (const [name, def] of Object.entries(defs)) {
    const location = def.in === 'path' ? 'path' : write && name !== 'multilingual_language' ? 'body' : 'query'
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
  const op: Record<string, unknown> = {
    operationId: operationId(method, route.pattern),
    summary: endpoint.summary,
    tags: [route.pattern.split('/')[1] || 'discovery'],
    parameters,
  }
  if (methods.length > 1 && method !== methods[0]) op.description = `Same as ${methods[0]}.`
  if (write) {
    const properties: Record<string, unknown> = {}
    const required: string[] = []
    for (const [name, def] of Object.entries(body)) {
      const shown = shownDefault(def, now)
      properties[name] = { ...paramSchema(def), ...(shown !== undefined && shown !== null ? { default: shown } : {}), description: def.description }
      if (def.required) required.push(name)
    }
    // One shared body per operation: POST, PUT and PATCH (and JSON and form) point at it.
    if (!bodies[endpoint.op]) {
      bodies[endpoint.op] = { type: 'object', properties, ...(required.length ? { required } : {}) }
    }
    const schema = ref(endpoint.op)
    op.requestBody = {
      required: required.length > 0,
      content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
    }
  }
  const okStatus = endpoint.status ?? 200
  const responses: Record<string, unknown> = {
    [okStatus]: {
      description: STATUS_TEXT[okStatus],
      content: { 'application/json': { schema: endpoint.response === 'object' ? { type: 'object' } : ref(endpoint.response) } },
    },
  }
  for (const status of endpoint.errors) {
    responses[status] = { description: STATUS_TEXT[status] ?? 'Error', content: { 'application/json': { schema: ref('Error') } } }
  }
  op.responses = responses
  return op
}

export function buildOpenApi(ctx: Context, routes: RouteDef[], schemas: Schemas, serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {}
  const bodies: Record<string, unknown> = {}
  for (const route of routes) {
    const item: Record<string, unknown> = {}
    for (const { methods, endpoint } of endpointGroups(route)) {
      for (const method of methods) item[method.toLowerCase()] = operation(route, methods, method, endpoint, schemas, bodies, { local: ctx.nowLocal })
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
        'Errors use the WordPress envelope {code, message, data: {status}}. Writes need a caller the host authenticates.',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: { schemas: { ...componentSchemas(), ...bodies } },
  }
}
