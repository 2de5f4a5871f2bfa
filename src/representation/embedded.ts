/**
 * The linked records a batch of posts embeds, as loaded by the resources, and the lookups the
 * serialisers make in them.
 */
import type { EventRecord, OrganizerRecord, TermWithCount, VenueRecord } from '../storage/types.js'

export interface Relations {
  venues: Map<number, VenueRecord>
  organizers: Map<number, OrganizerRecord>
  terms: Map<number, TermWithCount>
  translations: Map<number, Record<string, number>>
}

export function eventVenues(e: EventRecord, rel: Relations): VenueRecord[] {
  return e.venueIds.map((id) => rel.venues.get(id)).filter((v): v is VenueRecord => v !== undefined)
}

export function eventOrganizers(e: EventRecord, rel: Relations): OrganizerRecord[] {
  return e.organizerIds.map((id) => rel.organizers.get(id)).filter((v): v is OrganizerRecord => v !== undefined)
}
