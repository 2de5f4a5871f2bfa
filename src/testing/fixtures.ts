/** Complete records for storage tests, with overridable fields. */
import type { EventListQuery, NewPost, NewTerm } from '../storage/types.js'
import { EVENT_STATUS_DEFAULTS } from '../storage/types.js'

const common = {
  language: 'en',
  author: 1,
  status: 'publish' as const,
  description: '',
  excerpt: '',
  date: '2026-01-01 10:00:00',
  dateUtc: '2026-01-01 10:00:00',
  modified: '2026-01-01 10:00:00',
  modifiedUtc: '2026-01-01 10:00:00',
  image: null,
  customFields: {},
}

export function newEvent(o: Partial<NewPost<'event'>> = {}): NewPost<'event'> {
  return {
    ...common,
    type: 'event',
    slug: 'event',
    title: 'Event',
    startDate: '2027-01-10 10:00:00',
    endDate: '2027-01-10 12:00:00',
    startDateUtc: '2027-01-10 10:00:00',
    endDateUtc: '2027-01-10 12:00:00',
    timezone: 'UTC',
    allDay: false,
    cost: [],
    currencySymbol: '',
    currencyPosition: '',
    currencyCode: '',
    website: null,
    showMap: false,
    showMapLink: false,
    hideFromListings: false,
    sticky: false,
    featured: false,
    ...EVENT_STATUS_DEFAULTS,
    parentId: 0,
    venueIds: [],
    organizerIds: [],
    categoryIds: [],
    tagIds: [],
    ...o,
  }
}

export function newVenue(o: Partial<NewPost<'venue'>> = {}): NewPost<'venue'> {
  return {
    ...common,
    type: 'venue',
    slug: 'venue',
    title: 'Venue',
    address: '',
    city: '',
    country: '',
    province: '',
    state: '',
    zip: '',
    phone: '',
    stateprovince: '',
    website: '',
    showMap: true,
    showMapLink: true,
    geoLat: null,
    geoLng: null,
    ...o,
  }
}

export function newOrganizer(o: Partial<NewPost<'organizer'>> = {}): NewPost<'organizer'> {
  return { ...common, type: 'organizer', slug: 'organizer', title: 'Organizer', phone: '', website: '', email: '', ...o }
}

export function newTerm(o: Partial<NewTerm> = {}): NewTerm {
  return { taxonomy: 'category', language: 'en', name: 'Term', slug: 'term', description: '', parent: 0, ...o }
}

/** A published-events query in English, start order, everything on one page: what contract tests list with. */
export const eventQuery = (o: Partial<EventListQuery> = {}): EventListQuery => ({
  language: 'en',
  statuses: ['publish'],
  orderBy: 'start',
  offset: 0,
  limit: 1000,
  ...o,
})
