/**
 * What a search looks in, from the field table (fields.ts, role `searched`): both backends read
 * these, so they cannot disagree on what is searched.
 */
import { fieldsWhere, type FieldWhere } from './fields.js'
import type { EventRecord } from './types.js'
import { customSearchText, type CustomValues } from './custom-values.js'

/** The fields a venue or organizer search looks in (every word must occur in one of them). */
export const LINKED_SEARCH_FIELDS: Record<'venue' | 'organizer', readonly string[]> = {
  venue: fieldsWhere('venue', 'searched'),
  organizer: fieldsWhere('organizer', 'searched'),
}

/**
 * The words of a text: what whitespace (JavaScript's `\s`) separates, each once, in order of
 * first occurrence. The one splitting rule of event search: a search's words (`searchWords`) and
 * the tokens the SQL word index keeps of an event's search text (sql/event-words.ts) both use it,
 * so a word of a search is always a token the index can hold.
 */
export const wordsOf = (text: string): string[] => [...new Set(text.split(/\s+/))].filter(Boolean)

/** The words of an event search, lower-cased as the search text is: every backend and the response cache's tags read them here. */
export const searchWords = (search: string): string[] => wordsOf(search.toLowerCase())

const EVENT_SEARCHED = fieldsWhere('event', 'searched')

/** What an event search reads of an event. */
export type SearchedText = Pick<EventRecord, FieldWhere<'event', 'searched'>>

/**
 * An event's search haystack: its searched fields, one per line, lower-cased (no word of a
 * search holds a line break, so none matches across two fields). The SQL backends store it as
 * posts.search_text.
 */
export function eventSearchText(e: SearchedText): string {
  let text = part(e[EVENT_SEARCHED[0]!])
  for (let i = 1; i < EVENT_SEARCHED.length; i++) {
    const next = part(e[EVENT_SEARCHED[i]!])
    // An empty part adds nothing, so the text of an event without custom values is what it was
    // before custom fields existed (stored search texts stay right without a rewrite).
    if (next !== '' || typeof e[EVENT_SEARCHED[i]!] === 'string') text += '\n' + next
  }
  return text.toLowerCase()
}

/** A searched field's text: custom values contribute their text values (custom-values.ts). */
const part = (value: string | CustomValues | undefined): string => (typeof value === 'string' ? value : customSearchText(value))

/** Whether an event matches a search: every word is a substring of its search haystack. */
export function eventMatchesWords(e: SearchedText, words: readonly string[]): boolean {
  const text = eventSearchText(e)
  return words.every((w) => text.includes(w))
}
