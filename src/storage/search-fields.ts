/**
 * The fields a venue or organizer search looks in (every word must occur in one of them); both
 * backends read this one list, so they cannot disagree on what is searched.
 */
export const LINKED_SEARCH_FIELDS: Record<'venue' | 'organizer', readonly string[]> = {
  venue: ['title', 'description', 'excerpt', 'address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  organizer: ['title', 'description', 'excerpt', 'phone', 'email', 'website'],
}
