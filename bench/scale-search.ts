/**
 * The search and filtered-list operations of the scale bench (`scale.bench.ts` hooks them in).
 *
 * The data set's vocabulary decides how many events each search matches:
 * - `zephyr` (rare word): added to the description of one event in a thousand (0.1%);
 * - `intag` (common fragment): only inside `vintage`, one of 30 title adjectives (~3.3%);
 * - `vintage jazz` (two words, ANDed): ~0.4%;
 * - `zz` (two letters, below the trigram length): only inside `jazz` (~13%);
 * - `jazz` + the most common category (45% of the events).
 * Filtered lists: a venue holding 1% of the events, the category holding 45%, alone and with a
 * 12-month window, and both together with the window.
 */
import { linksBackfill } from '../src/storage/sql/event-filters.js'
import { eventWordsBackfill } from '../src/storage/sql/event-words.js'

/** The rare word, in one event of a thousand (`makeEvent` appends it to the description). */
export const RARE_WORD = 'zephyr'
export const rareWordFor = (i: number) => (i % 1000 === 500 ? ` ${RARE_WORD}` : '')

export interface SearchOperation {
  key: string
  label: string
  requests?: number
  target: () => string
}

export function searchOperations(refs: { venues: number[]; categories: number[] }, window: string): SearchOperation[] {
  const venue = refs.venues[7]!
  const category = refs.categories[0]!
  const op = (key: string, label: string, query: string): SearchOperation => ({ key, label, target: () => `/events?per_page=10&${query}` })
  return [
    op('search-rare', `search=${RARE_WORD} (0.1%)`, `search=${RARE_WORD}`),
    op('search-common', 'search=intag (fragment, ~3%)', 'search=intag'),
    op('search-two', 'search=vintage jazz (two words)', 'search=vintage%20jazz'),
    op('search-short', 'search=zz (two letters: no trigram)', 'search=zz'),
    op('search-category', 'search=jazz + category(45%)', `search=jazz&categories=${category}`),
    op('filtered-venue', 'filtered: venue(1%)', `venue=${venue}`),
    op('filtered-category', 'filtered: category(45%)', `categories=${category}`),
    op('filtered-venue-window', 'filtered: venue(1%)+12 months', `venue=${venue}&${window}`),
    op('filtered-category-window', 'filtered: category(45%)+12 months', `categories=${category}&${window}`),
  ]
}

/**
 * For the bulk seeding paths: the event_filters rows and day counters (and on PostgreSQL the
 * token postings) of the events just inserted raw (ids from `first` to `last`), exactly what
 * insertPost writes for them. `?` placeholders; the caller numbers them for PostgreSQL.
 */
export const filterBulkSql = (dialect: 'sqlite' | 'postgres') => [
  `INSERT INTO event_filters (kind, ref_id, language, status, start_date, event_id, end_date)
   SELECT DISTINCT x.kind, x.linked_id, p.language, p.status, p.start_date, p.id, p.end_date FROM event_links x JOIN posts p ON p.id = x.event_id
   WHERE x.event_id BETWEEN ? AND ? AND p.hide_from_listings = FALSE
   UNION
   SELECT DISTINCT x.kind, x.term_id, p.language, p.status, p.start_date, p.id, p.end_date FROM event_terms x JOIN posts p ON p.id = x.event_id
   WHERE x.event_id BETWEEN ? AND ? AND p.hide_from_listings = FALSE`,
  `INSERT INTO event_filter_day_counts (kind, ref_id, language, status, start_day, end_day, n)
   SELECT kind, ref_id, language, status, substr(start_date, 1, 10), substr(end_date, 1, 10), count(*) FROM event_filters
   WHERE event_id BETWEEN ? AND ? GROUP BY kind, ref_id, language, status, substr(start_date, 1, 10), substr(end_date, 1, 10)
   ON CONFLICT (kind, ref_id, language, status, start_day, end_day) DO UPDATE SET n = event_filter_day_counts.n + excluded.n`,
  linksBackfill(dialect, true),
  // PostgreSQL's token index (event-words.ts): classes, vocabulary, postings.
  ...(dialect === 'postgres' ? eventWordsBackfill(true) : []),
]
export const filterBulkParams = (first: number, last: number) => [
  [first, last, first, last],
  [first, last],
  [first, last],
  [first, last],
  [first, last],
  [first, last],
]
