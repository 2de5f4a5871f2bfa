/**
 * The event records the benches seed in bulk (bench/scale.bench.ts, bench/journal.bench.ts): each
 * bench draws what varies from its own seeded generator; the rest is what a site's event
 * typically holds. Type imports only: the journal bench also seeds older checkouts, which take
 * the record as data (and ignore fields they do not know, such as the event status ones).
 */
import type { NewPost, PostStatus } from '../src/storage/types.js'

/** What a bench's data set varies from one event to the next. */
export interface BenchEventFields {
  status: PostStatus
  slug: string
  title: string
  description: string
  /** Publication (and last modification) time, wall-clock UTC. */
  created: string
  start: string
  end: string
  allDay: boolean
  cost: string[]
  featured: boolean
  venueIds: number[]
  organizerIds: number[]
  categoryIds: number[]
  tagIds: number[]
}

/**
 * @example
 * benchEvent({ status: 'publish', slug: 'jazz-1', title: 'Jazz', description: '<p>Jazz.</p>', created, start, end,
 *   allDay: false, cost: [], featured: false, venueIds: [3], organizerIds: [], categoryIds: [5], tagIds: [] })
 */
export function benchEvent(f: BenchEventFields): NewPost<'event'> {
  return {
    type: 'event',
    language: 'en',
    customFields: {},
    author: 1,
    status: f.status,
    slug: f.slug,
    title: f.title,
    description: f.description,
    excerpt: '',
    date: f.created,
    dateUtc: f.created,
    modified: f.created,
    modifiedUtc: f.created,
    image: null,
    startDate: f.start,
    endDate: f.end,
    startDateUtc: f.start,
    endDateUtc: f.end,
    timezone: 'UTC',
    allDay: f.allDay,
    cost: f.cost,
    currencySymbol: '',
    currencyPosition: '',
    currencyCode: '',
    website: null,
    showMap: true,
    showMapLink: true,
    hideFromListings: false,
    sticky: false,
    featured: f.featured,
    // Written out rather than spread from EVENT_STATUS_DEFAULTS, a value older checkouts lack.
    eventStatus: 'scheduled',
    eventStatusReason: '',
    previousStartDate: null,
    attendanceMode: 'offline',
    virtualUrl: null,
    parentId: 0,
    venueIds: f.venueIds,
    organizerIds: f.organizerIds,
    categoryIds: f.categoryIds,
    tagIds: f.tagIds,
  }
}
