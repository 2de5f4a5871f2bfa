/** schema.org JSON-LD for single reads (docs/wire-compatibility.md §2.5). */
import type { Context } from '../context.js'
import { permalink, siteBase } from '../urls.js'
import type { EventRecord, OrganizerRecord, VenueRecord } from '../storage/types.js'
import { formatCost, costNumbers } from './cost.js'
import { isoOffset } from '../time/zone.js'
import type { Json } from './common.js'

const iso = (wall: string, tz: string, utc: string) => `${wall.replace(' ', 'T')}${isoOffset(tz, utc)}`

export function venueJsonLd(ctx: Context, v: VenueRecord): Json {
  const address: Json = { '@type': 'PostalAddress' }
  if (v.address) address.streetAddress = v.address
  if (v.city) address.addressLocality = v.city
  if (v.stateprovince || v.state || v.province) address.addressRegion = v.stateprovince || v.state || v.province
  if (v.zip) address.postalCode = v.zip
  if (v.country) address.addressCountry = v.country
  const out: Json = {
    '@type': 'Place',
    name: v.title,
    description: v.excerpt || v.description,
    // The canonical page: under the site's address, whatever name the request used.
    url: permalink(ctx, 'venue', v, siteBase(ctx)),
    address,
  }
  if (v.geoLat !== null && v.geoLng !== null) out.geo = { '@type': 'GeoCoordinates', latitude: v.geoLat, longitude: v.geoLng }
  if (v.phone) out.telephone = v.phone
  if (v.website) out.sameAs = v.website
  return out
}

export function organizerJsonLd(_ctx: Context, o: OrganizerRecord): Json {
  const out: Json = { '@type': 'Person', name: o.title, description: o.excerpt || o.description }
  if (o.website) out.url = o.website
  if (o.phone) out.telephone = o.phone
  if (o.email) out.email = o.email
  if (o.website) out.sameAs = o.website
  return out
}

const ATTENDANCE = {
  offline: 'OfflineEventAttendanceMode',
  online: 'OnlineEventAttendanceMode',
  mixed: 'MixedEventAttendanceMode',
} as const

/** ISO 4217 codes of the currency symbols that name one currency; a price in any other is in USD, TEC's default. */
const SYMBOL_CURRENCY: Readonly<Record<string, string>> = {
  '£': 'GBP',
  '€': 'EUR',
  '¥': 'JPY',
  '₹': 'INR',
  '₩': 'KRW',
  '₺': 'TRY',
  '₪': 'ILS',
  '₽': 'RUB',
  '₴': 'UAH',
  '₫': 'VND',
  '฿': 'THB',
  '₱': 'PHP',
  CHF: 'CHF',
}

const currencyOfSymbol = (symbol: string): string => SYMBOL_CURRENCY[symbol.trim()] ?? 'USD'

/** schema.org's eventStatus: a postponed event given new dates since is rescheduled. */
function eventStatus(e: EventRecord): string {
  if (e.eventStatus === 'canceled') return 'EventCancelled'
  if (e.eventStatus === 'postponed') return 'EventPostponed'
  return e.previousStartDate ? 'EventRescheduled' : 'EventScheduled'
}

export function eventJsonLd(ctx: Context, e: EventRecord, venue: VenueRecord | undefined, organizer: OrganizerRecord | undefined): Json {
  const url = permalink(ctx, 'event', e, siteBase(ctx))
  const out: Json = {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: e.title,
    description: e.excerpt,
  }
  if (e.image) out.image = e.image.url
  out.url = url
  const mode = e.attendanceMode ?? 'offline'
  out.eventAttendanceMode = `https://schema.org/${ATTENDANCE[mode]}`
  out.eventStatus = `https://schema.org/${eventStatus(e)}`
  out.startDate = iso(e.startDate, e.timezone, e.startDateUtc)
  out.endDate = iso(e.endDate, e.timezone, e.endDateUtc)
  if (e.previousStartDate && eventStatus(e) === 'EventRescheduled')
    out.previousStartDate = iso(e.previousStartDate, e.timezone, e.startDateUtc)
  // Online: a VirtualLocation; mixed: the place and the VirtualLocation, as schema.org shows them.
  const online = mode !== 'offline' && e.virtualUrl ? { '@type': 'VirtualLocation', url: e.virtualUrl } : null
  const place = venue && mode !== 'online' ? venueJsonLd(ctx, venue) : null
  if (place && online) out.location = [place, online]
  else if (place ?? online) out.location = place ?? online
  if (organizer) out.organizer = organizerJsonLd(ctx, organizer)
  if (e.cost.length) {
    const values = costNumbers(e.cost)
    out.offers = {
      '@type': 'Offer',
      price: values[0] ?? formatCost(e, ctx.options.currency),
      priceCurrency: e.currencyCode || currencyOfSymbol(e.currencySymbol || ctx.options.currency.symbol),
      url,
      category: 'primary',
      availability: 'inStock',
      validFrom: iso(e.date, ctx.options.timezone, e.dateUtc),
    }
  }
  out.performer = 'Organization'
  return out
}
