/**
 * Great-circle geometry for the geofence filters, shared by every backend so that they agree to
 * the last bit: a backend narrows candidates with `boundingBox` (an index range), then keeps
 * exactly those for which `withinCircle` holds.
 */

/** Mean Earth radius (IUGG), the sphere every distance here is measured on. */
export const EARTH_RADIUS_KM = 6371.0088

export const KM_PER_MILE = 1.609344

/** A circle on the Earth's surface: centre in degrees, radius in kilometres. */
export interface GeoCircle {
  lat: number
  lng: number
  radiusKm: number
}

/** Latitude range plus one or two longitude ranges (two when the box crosses the antimeridian). */
export interface GeoBox {
  latMin: number
  latMax: number
  lngRanges: Array<[min: number, max: number]>
}

const rad = (deg: number) => (deg * Math.PI) / 180
const deg = (r: number) => (r * 180) / Math.PI

/** Haversine distance in kilometres (well conditioned for small distances). */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = rad(lat2 - lat1)
  const dLng = rad(lng2 - lng1)
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLng / 2) ** 2
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)))
}

export function withinCircle(c: GeoCircle, lat: number | null, lng: number | null): boolean {
  if (lat === null || lng === null || !Number.isFinite(lat) || !Number.isFinite(lng)) return false
  return distanceKm(c.lat, c.lng, lat, lng) <= c.radiusKm
}

/**
 * The smallest latitude/longitude box holding the circle, widened by a hair so rounding never
 * drops a point the exact test would keep. A circle reaching a pole spans every longitude.
 */
export function boundingBox(c: GeoCircle): GeoBox {
  const margin = 1e-9
  const delta = c.radiusKm / EARTH_RADIUS_KM
  const dLat = deg(delta)
  const latMin = c.lat - dLat - margin
  const latMax = c.lat + dLat + margin
  if (latMin <= -90 || latMax >= 90) {
    return { latMin: Math.max(-90, latMin), latMax: Math.min(90, latMax), lngRanges: [[-180, 180]] }
  }
  // Widest longitude offset of the circle, reached north or south of its centre's latitude.
  const dLng = deg(Math.asin(Math.min(1, Math.sin(delta) / Math.cos(rad(c.lat))))) + margin
  const lngMin = c.lng - dLng
  const lngMax = c.lng + dLng
  if (lngMin < -180)
    return {
      latMin,
      latMax,
      lngRanges: [
        [lngMin + 360, 180],
        [-180, lngMax],
      ],
    }
  if (lngMax > 180)
    return {
      latMin,
      latMax,
      lngRanges: [
        [lngMin, 180],
        [-180, lngMax - 360],
      ],
    }
  return { latMin, latMax, lngRanges: [[lngMin, lngMax]] }
}

export function inBox(b: GeoBox, lat: number, lng: number): boolean {
  return lat >= b.latMin && lat <= b.latMax && b.lngRanges.some(([lo, hi]) => lng >= lo && lng <= hi)
}
