/** Every operation's parameters, built once per router (languages and page size vary). */
import { eventDeleteParams, eventIdParams, eventListParams, eventSlugParams, eventWriteParams } from './events.js'
import type { SchemaConfig } from './common.js'
import { languageParam } from './common.js'
import { linkedDeleteParams, linkedIdParams, linkedListParams, linkedSlugParams, organizerWriteParams, venueWriteParams } from './linked.js'
import { termIdParams, termListParams, termWriteParams } from './terms.js'
import { webhookParams } from './webhooks.js'
import * as v from 'valibot'
import * as p from './primitives.js'
import type { ParamsOutput } from './operation.js'

export function buildSchemas(c: SchemaConfig) {
  return {
    root: {
      namespace: { schema: p.string(), default: 'calendar/events/v1', description: 'The namespace.', in: 'query' as const },
      context: {
        schema: v.pipe(p.string(), v.picklist(['view', 'embed', 'edit'], p.INVALID)),
        default: 'view',
        description: 'Scope under which the request is made.',
        in: 'query' as const,
      },
      multilingual_language: languageParam(c.languages),
    },
    doc: { multilingual_language: languageParam(c.languages) },
    eventList: eventListParams(c),
    eventCreate: eventWriteParams(c, true),
    eventUpdate: eventWriteParams(c, false),
    eventById: eventIdParams(c),
    eventBySlug: eventSlugParams(c),
    eventDelete: eventDeleteParams(c, false),
    eventDeleteBySlug: eventDeleteParams(c, true),
    venueList: linkedListParams(c, 'venue'),
    venueCreate: venueWriteParams(c, true),
    venueUpdate: venueWriteParams(c, false),
    venueById: linkedIdParams(c, 'venue'),
    venueBySlug: linkedSlugParams(c, 'venue'),
    venueDelete: linkedDeleteParams(c, 'venue', false),
    venueDeleteBySlug: linkedDeleteParams(c, 'venue', true),
    organizerList: linkedListParams(c, 'organizer'),
    organizerCreate: organizerWriteParams(c, true),
    organizerUpdate: organizerWriteParams(c, false),
    organizerById: linkedIdParams(c, 'organizer'),
    organizerBySlug: linkedSlugParams(c, 'organizer'),
    organizerDelete: linkedDeleteParams(c, 'organizer', false),
    organizerDeleteBySlug: linkedDeleteParams(c, 'organizer', true),
    categoryList: termListParams(c, true),
    categoryCreate: termWriteParams(c, true, true),
    categoryUpdate: termWriteParams(c, false, true),
    tagList: termListParams(c, false),
    tagCreate: termWriteParams(c, true, false),
    tagUpdate: termWriteParams(c, false, false),
    termById: termIdParams(c),
    ...webhookParams,
  }
}

export type Schemas = ReturnType<typeof buildSchemas>

/** The name of an operation: what an endpoint declares, and what validates its requests. */
export type OpName = keyof Schemas

/** An operation's validated, typed parameters (a union of operations gives the union of inputs). */
export type Input<O extends OpName> = O extends OpName ? ParamsOutput<Schemas[O]> : never
