/** Parameters of recurring events (an extension: TEC keeps recurrence in its premium add-on). */
import * as v from 'valibot'
import * as p from './primitives.js'
import type { ParamDef } from './operation.js'
import { wire } from './wire.js'

const dateList = { type: 'array', items: { type: 'string' }, maxItems: 1000 }

/**
 * The shape only; the rule itself is parsed by the resource (src/resources/series.ts), which
 * answers a 400 naming `recurrence` with the reason.
 */
const recurrenceSchema = wire(
  v.pipe(
    v.unknown(),
    v.check(
      (x) =>
        x === null ||
        (typeof x === 'string' && x.length <= 500) ||
        (typeof x === 'object' &&
          !Array.isArray(x) &&
          // A read's recurrence also holds its description, which a write ignores.
          Object.keys(x).every((k) => k === 'rrule' || k === 'rdate' || k === 'exdate' || k === 'description') &&
          typeof (x as { rrule?: unknown }).rrule === 'string' &&
          ['rdate', 'exdate'].every((k) => {
            const list = (x as Record<string, unknown>)[k]
            return (
              list === undefined ||
              (Array.isArray(list) && list.length <= 1000 && list.every((d) => typeof d === 'string' || typeof d === 'number'))
            )
          })),
      p.INVALID,
    ),
  ),
  {
    anyOf: [
      { type: 'string', maxLength: 500 },
      {
        type: 'object',
        properties: { rrule: { type: 'string', maxLength: 500 }, rdate: dateList, exdate: dateList },
        required: ['rrule'],
        additionalProperties: false,
      },
      { type: 'null' },
    ],
  },
)

export const recurrenceScopeParam = {
  schema: wire(v.pipe(p.string(), v.picklist(['this', 'following', 'all'], p.INVALID)), {
    type: 'string',
    enum: ['this', 'following', 'all'],
  }),
  description:
    'For an occurrence of a recurring series: this (the default for later occurrences: only this one, which then keeps its own fields), ' +
    'following (this and later occurrences, split off as a new series) or all (the default for the first occurrence).',
} satisfies ParamDef

export function seriesWriteParams(create: boolean) {
  return {
    recurrence: {
      schema: recurrenceSchema,
      description:
        'Makes the event a recurring series: an RFC 5545 rule ("FREQ=WEEKLY;BYDAY=TU,TH;COUNT=12", with or without RRULE:) or ' +
        '{ rrule, rdate?: [dates], exdate?: [dates] } in the event time zone. Supported: FREQ DAILY to YEARLY, INTERVAL, COUNT, UNTIL, ' +
        'BYDAY (with ordinals such as -1FR), BYMONTHDAY, BYMONTH, BYSETPOS, WKST. Every occurrence is an event of its own; null or "" on an update ends the series.',
    },
    ...(create ? {} : { recurrence_scope: recurrenceScopeParam }),
  } satisfies Record<string, ParamDef>
}

export const seriesListParams = {
  hide_subsequent_recurrences: {
    schema: p.boolean(),
    description: 'Of each recurring series show only its next occurrence that has not ended yet.',
    in: 'query',
  },
} satisfies Record<string, ParamDef>
