/** Every operation's parameters, built once per router (languages and page size vary). */
import { eventIdParams, eventListParams, eventSlugParams, eventWriteParams, type SchemaConfig } from './events.js'
import { languageParam } from './common.js'
import * as v from 'valibot'
import * as p from './primitives.js'

export function buildSchemas(c: SchemaConfig) {
  return {
    root: {
      namespace: { schema: p.string(), default: 'calendar/events/v1', description: 'The namespace.', in: 'query' as const },
      context: { schema: v.pipe(p.string(), v.picklist(['view', 'embed', 'edit'], p.INVALID)), default: 'view', description: 'Scope under which the request is made.', in: 'query' as const },
      multilingual_language: languageParam(c.languages),
    },
    doc: { multilingual_language: languageParam(c.languages) },
    eventList: eventListParams(c),
    eventCreate: eventWriteParams(c, true),
    eventUpdate: eventWriteParams(c, false),
    eventById: eventIdParams(c),
    eventBySlug: eventSlugParams(c),
  }
}

export type Schemas = ReturnType<typeof buildSchemas>
