/**
 * The fields a venue or organizer search looks in (every word must occur in one of them); both
 * backends read this one list, so they cannot disagree on what is searched.
 */
export const LINKED_SEARCH_FIELDS: Record<'venue' | 'organizer', readonly string[]> = {
  venue: ['title', 'description', 'excerpt', 'address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  organizer: ['title', 'description', 'excerpt', 'phone', 'email', 'website'],
}

/** The words of an event search: lower-cased, split on whitespace, each once. */
export const searchWords = (search: string): string[] => [...new Set(search.toLowerCase().split(/\s+/).filter(Boolean))]

/** Whether an event matches a search: every word is a substring of its lower-cased title, description and excerpt. */
export function eventMatchesWords(e: { title: string; description: string; excerpt: string }, words: readonly string[]): boolean {
  const text = `${e.title}\n${e.description}\n${e.excerpt}`.toLowerCase()
  return words.every((w) => text.includes(w))
}
