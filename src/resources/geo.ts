/**
 * Geolocation in the resources: venue coordinates on writes (given, cleared or geocoded) and
 * the geofence filters of event and venue lists.
 */
import { canEditOthers, canEditPosts } from '../auth/principal.js'
import { invalidParam } from '../http/errors.js'
import { MAX_GEOFENCE_KM, type GeocodeAddress } from '../options.js'
import { KM_PER_MILE, type GeoCircle } from '../storage/geo.js'
import type { VenueGeoQuery, VenueRecord } from '../storage/types.js'
import type { Context } from '../context.js'

export interface Coordinates {
  geoLat: number | null
  geoLng: number | null
}

const pairFailure = (missing: 'geo_lat' | 'geo_lng') =>
  invalidParam(missing, {
    code: 'rest_coordinates_pair',
    message: 'geo_lat and geo_lng are given together: both numbers, or both empty to clear.',
  })

/**
 * The coordinates a validated venue input sets: undefined when it names neither, null values
 * when it clears both. One without the other (or one empty, one not) is a 400 naming the other.
 */
export function coordinatesOf(input: { geo_lat?: number | null; geo_lng?: number | null }): Coordinates | undefined {
  const { geo_lat: lat, geo_lng: lng } = input
  if (lat === undefined && lng === undefined) return undefined
  if (lat === undefined || (lat === null && lng !== null)) throw pairFailure('geo_lat')
  if (lng === undefined || (lng === null && lat !== null)) throw pairFailure('geo_lng')
  return { geoLat: lat, geoLng: lng }
}

type AddressFields = Pick<VenueRecord, 'address' | 'city' | 'state' | 'province' | 'stateprovince' | 'zip' | 'country'>

/** Fields that locate a venue (phone and website do not). */
export const ADDRESS_FIELDS = ['address', 'city', 'state', 'province', 'stateprovince', 'zip', 'country'] as const

const hasAddress = (v: AddressFields) => ADDRESS_FIELDS.some((f) => v[f].trim() !== '')

class GeocodeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`calendar-events-router: geocode ${message}`, options)
    this.name = 'GeocodeError'
  }
}

function addressOf(v: AddressFields): GeocodeAddress {
  const region = [v.stateprovince || v.state || v.province, v.zip].filter((s) => s.trim() !== '').join(' ')
  const line = [v.address, v.city, region, v.country]
    .map((s) => s.trim())
    .filter(Boolean)
    .join(', ')
  return {
    address: v.address,
    city: v.city,
    state: v.state,
    province: v.province,
    stateprovince: v.stateprovince,
    zip: v.zip,
    country: v.country,
    line,
  }
}

/**
 * Coordinates for a venue written without them, from the host's `geocode` hook; undefined when
 * there is no hook or no address to look up. Failures, invalid answers and timeouts end in
 * `onError` and null coordinates: the write itself goes on.
 */
export async function geocodeVenue(ctx: Context, venue: AddressFields): Promise<Coordinates | undefined> {
  const hook = ctx.options.geocode
  if (!hook || !hasAddress(venue)) return undefined
  const none: Coordinates = { geoLat: null, geoLng: null }
  const ms = ctx.options.geocodeTimeoutMs
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new GeocodeError(`did not answer within ${ms} ms`)), ms)
    })
    const call = Promise.resolve().then(() => hook(addressOf(venue)))
    // After a timeout nobody awaits the call: its late failure must not be an unhandled rejection.
    call.catch(() => undefined)
    const found = await Promise.race([call, timeout])
    if (found === null || found === undefined) return none
    // The host's answer is untrusted whatever its declared type: read it as unknown and check it.
    const { lat, lng } = found as { lat: unknown; lng: unknown }
    const ok = (x: unknown, max: number): x is number => typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= max
    if (!ok(lat, 90) || !ok(lng, 180)) throw new GeocodeError(`returned ${JSON.stringify(found)}, not { lat, lng } in range`)
    return { geoLat: lat, geoLng: lng }
  } catch (error) {
    ctx.options.onError?.(error instanceof GeocodeError ? error : new GeocodeError('failed', { cause: error }), ctx.request)
    return none
  } finally {
    clearTimeout(timer)
  }
}

/** Coordinates of a new venue: as given, else geocoded from its address, else none. */
export async function newVenueCoordinates(
  ctx: Context,
  input: Parameters<typeof coordinatesOf>[0],
  venue: AddressFields,
): Promise<Coordinates> {
  return coordinatesOf(input) ?? (await geocodeVenue(ctx, venue)) ?? { geoLat: null, geoLng: null }
}

// ---------------------------------------------------------------------------------------------
// List filters

export interface GeoFilter {
  /** `rest_url` parameters, in order, with effective values. */
  canonical: Array<[string, string]>
  /** Only records with (or whose venue has) coordinates. */
  located: boolean
  near?: GeoCircle
}

/** The validated filter parameters of an event or venue list (an organizer list has none). */
export interface GeoFilterInput {
  geoloc?: boolean
  geoloc_lat?: number
  geoloc_lng?: number
  geoloc_radius?: number
}

/**
 * Reads geoloc, geoloc_lat, geoloc_lng and geoloc_radius (already validated one by one);
 * half a point, or a radius without a point, is reported through `fail`.
 */
export function geoFilter(ctx: Pick<Context, 'options'>, q: GeoFilterInput, fail: (name: string) => void): GeoFilter {
  const { geoloc_lat: lat, geoloc_lng: lng } = q
  const out: GeoFilter = { canonical: [], located: q.geoloc === true }
  if (q.geoloc !== undefined) out.canonical.push(['geoloc', q.geoloc ? '1' : '0'])
  if ((lat === undefined) !== (lng === undefined)) {
    fail(lat === undefined ? 'geoloc_lat' : 'geoloc_lng')
    return out
  }
  if (lat === undefined || lng === undefined) {
    if (q.geoloc_radius !== undefined) fail('geoloc_radius')
    return out
  }
  const fence = ctx.options.geofence
  const perUnit = fence.unit === 'mi' ? KM_PER_MILE : 1
  // The cap, like per_page's, narrows what was asked instead of refusing it.
  const radius = Math.min(q.geoloc_radius ?? fence.radius, MAX_GEOFENCE_KM / perUnit)
  out.canonical.push(['geoloc_lat', String(lat)], ['geoloc_lng', String(lng)])
  if (q.geoloc_radius !== undefined) out.canonical.push(['geoloc_radius', String(radius)])
  out.located = true
  out.near = { lat, lng, radiusKm: radius * perUnit }
  return out
}

/** The event filter: venues count only when the caller may read them (as when embedded). */
export function venueGeoQuery(ctx: Pick<Context, 'principal'>, g: GeoFilter): VenueGeoQuery | undefined {
  if (!g.located) return undefined
  const p = ctx.principal
  const unpublishedVenues = canEditOthers(p) ? 'all' : p && canEditPosts(p) ? p.id : 'none'
  return { ...(g.near ? { near: g.near } : {}), unpublishedVenues }
}
