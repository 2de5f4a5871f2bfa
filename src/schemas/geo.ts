/** Coordinates on venue writes and the geolocation filters of event and venue lists. */
import * as v from 'valibot'
import * as p from './primitives.js'
import type { ParamDefs } from './operation.js'
import { wire } from './wire.js'
import type { SchemaConfig } from './common.js'

const BOUNDS = { lat: 90, lng: 180 } as const

/** A decimal number as forms send it: no hex, no blanks, no `Infinity`. */
const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/

const outOfBounds = (max: number) => p.failure('rest_out_of_bounds', `{name} must be between -${max} (inclusive) and ${max} (inclusive).`)
const notNumber = p.failure('rest_invalid_type', '{name} is not of type number.')

const numeric = (x: unknown) => (typeof x === 'number' && Number.isFinite(x)) || (typeof x === 'string' && NUMERIC.test(x))

/** A latitude or longitude in degrees; with `clearable`, `""` and `null` mean "no coordinate". */
export function coordinate(axis: 'lat' | 'lng', clearable: true): v.GenericSchema<unknown, number | null>
export function coordinate(axis: 'lat' | 'lng', clearable: false): v.GenericSchema<unknown, number>
export function coordinate(axis: 'lat' | 'lng', clearable: boolean): v.GenericSchema<unknown, number | null> {
  const max = BOUNDS[axis]
  const empty = (x: unknown) => clearable && (x === null || x === '')
  return wire(
    v.pipe(
      v.unknown(),
      v.check((x) => empty(x) || numeric(x), notNumber),
      v.check((x) => empty(x) || Math.abs(Number(x)) <= max, outOfBounds(max)),
      v.transform((x) => (empty(x) ? null : Number(x))),
    ),
    clearable ? { type: ['number', 'string', 'null'], minimum: -max, maximum: max } : { type: 'number', minimum: -max, maximum: max },
  )
}

/** Venue body fields. Both or neither; the resource checks the pair (see resources/geo.ts). */
export const coordinateWriteParams = {
  geo_lat: {
    schema: coordinate('lat', true),
    description:
      'Latitude in degrees (-90 to 90), a number or numeric string; give it with geo_lng. "" or null (both) clears the coordinates.',
  },
  geo_lng: {
    schema: coordinate('lng', true),
    description:
      'Longitude in degrees (-180 to 180), a number or numeric string; give it with geo_lat. "" or null (both) clears the coordinates.',
  },
} satisfies ParamDefs

const positiveNumber = () =>
  wire(
    v.pipe(
      v.unknown(),
      v.check(numeric, notNumber),
      v.check(
        (x) => Number(x) > 0 && Number.isFinite(Number(x)),
        p.failure('rest_out_of_bounds', '{name} must be a number greater than 0.'),
      ),
      v.transform((x) => Number(x)),
    ),
    { type: 'number', exclusiveMinimum: 0 },
  )

/** The list filters; `what` names the listed records in the descriptions. */
export function geoFilterParams(what: 'Events' | 'Venues', c: SchemaConfig) {
  const fence = c.geofence ?? { radius: 25, unit: 'mi' }
  const unit = fence.unit === 'km' ? 'kilometres' : 'miles'
  const subject = what === 'Events' ? 'Events whose venue' : 'Venues that'
  const located = what === 'Events' ? 'lies' : 'lie'
  return {
    geoloc: {
      schema: p.boolean(),
      description: `true: only ${what.toLowerCase()} ${what === 'Events' ? 'whose venue has' : 'with'} coordinates (false filters nothing).`,
      in: 'query',
    },
    geoloc_lat: {
      schema: coordinate('lat', false),
      description: `${subject} ${located} within the geofence of this latitude; give it with geoloc_lng.`,
      in: 'query',
    },
    geoloc_lng: {
      schema: coordinate('lng', false),
      description: `${subject} ${located} within the geofence of this longitude; give it with geoloc_lat.`,
      in: 'query',
    },
    geoloc_radius: {
      schema: positiveNumber(),
      description: `Geofence radius around geoloc_lat/geoloc_lng in ${unit} (default ${fence.radius}); larger values are capped at 20,000 km.`,
      in: 'query',
    },
  } satisfies ParamDefs
}
