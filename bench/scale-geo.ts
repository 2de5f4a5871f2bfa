/**
 * The geolocation part of the scale benchmark (bench/scale.bench.ts): venues spread over a
 * continent, and "events near a point" requests.
 *
 * - The bench's 100 common venues (~1% of the events each) are placed at random over North
 *   America (24°N-49°N, 124°W-67°W); its rare venue (20 events whatever the size) stands alone at
 *   RARE_POINT, with no other venue within EXCLUSION_KM.
 * - GEO_VENUES more venues without events are spread over the same area (SCALE_GEO_VENUES,
 *   default 10,000), so the bounding-box read has realistic neighbours to skip.
 * - SCALE_OPS=geo-fixed,filtered-rare,...: measure only these operations (keys), all by default.
 * - Requests: near the rare venue (a fixed-size answer: the target, flat from 10k to 1M), near a
 *   common venue (the answer grows with the data: ~1% of the events), geoloc=true (every event
 *   with a located venue: most of them), and venues near a point.
 */
import type { RequestLike } from '../src/http/types.js'
import type { NewPost, StorageTx } from '../src/storage/types.js'
import { newVenue } from '../src/testing/fixtures.js'
import { distanceKm } from '../src/storage/geo.js'
import { prng } from './prng.js'

const AREA = { latMin: 24, latMax: 49, lngMin: -124, lngMax: -67 }
/** Near Pierre, South Dakota: inland, in the middle of the area. */
export const RARE_POINT = { lat: 44.3683, lng: -100.351 }
/** No other venue this close to the rare one: the default geofence (25 mi = 40.2 km) holds it alone. */
const EXCLUSION_KM = 45
const GEO_VENUES = Number(process.env.SCALE_GEO_VENUES ?? 10_000)

/** A random point of the area at least EXCLUSION_KM from the rare venue. */
function spread(seed: number): { geoLat: number; geoLng: number } {
  const r = prng(seed)
  for (;;) {
    const lat = AREA.latMin + r() * (AREA.latMax - AREA.latMin)
    const lng = AREA.lngMin + r() * (AREA.lngMax - AREA.lngMin)
    if (distanceKm(lat, lng, RARE_POINT.lat, RARE_POINT.lng) >= EXCLUSION_KM) return { geoLat: +lat.toFixed(6), geoLng: +lng.toFixed(6) }
  }
}

/** Coordinates of the bench's venue `n` (n = the number of common venues: the rare one). */
export function geoVenue(n: number, commonVenues = 100): { geoLat: number; geoLng: number } {
  return n === commonVenues ? { geoLat: RARE_POINT.lat, geoLng: RARE_POINT.lng } : spread(0x9e0 + n)
}

/** The venues without events, inserted with the bench's other reference records. */
export async function seedGeoVenues(tx: StorageTx, base: Partial<NewPost<'venue'>>): Promise<void> {
  for (let n = 0; n < GEO_VENUES; n++) {
    await tx.insertPost(
      newVenue({ ...base, slug: `geo-venue-${n}`, title: `Geo venue ${n}`, city: `Town ${n % 997}`, ...spread(0x6e0 + n) }),
    )
  }
}

interface GeoOperation {
  key: string
  label: string
  requests?: number
  next(): RequestLike
}

/** The geo requests; `request` is the bench's request builder. */
export function geoOperations(request: (method: string, target: string) => RequestLike, commonVenue = 7): GeoOperation[] {
  const city = geoVenue(commonVenue)
  const at = (p: { lat: number; lng: number }) => `geoloc_lat=${p.lat}&geoloc_lng=${p.lng}`
  const cityPoint = { lat: city.geoLat, lng: city.geoLng }
  return [
    {
      key: 'geo-fixed',
      label: 'geo: near a point, fixed answer (rare venue)',
      next: () => request('GET', `/events?per_page=10&${at(RARE_POINT)}`),
    },
    {
      key: 'geo-city',
      label: 'geo: near a common venue, ~1% (informational)',
      requests: 100,
      next: () => request('GET', `/events?per_page=10&${at(cityPoint)}`),
    },
    {
      key: 'geo-all',
      label: 'geo: geoloc=true, most events (informational)',
      requests: 20,
      next: () => request('GET', '/events?per_page=10&geoloc=true'),
    },
    {
      key: 'geo-venues',
      label: 'geo: GET /venues near a point, 200 km',
      next: () => request('GET', `/venues?per_page=10&${at(cityPoint)}&geoloc_radius=125`),
    },
  ]
}

/** The operations SCALE_OPS names (all when unset). */
export function selectOps<T extends { key: string }>(ops: T[]): T[] {
  const only = process.env.SCALE_OPS?.split(',').map((k) => k.trim())
  return only ? ops.filter((o) => only.includes(o.key)) : ops
}
