/**
 * The field table (src/storage/fields.ts) against what the backends store, and its views
 * against the lists they replaced: those lists are written out below once, as they were in the
 * code before the table (issue 24, item 1), so a change of any role shows up here as a change
 * of these fixtures, made on purpose.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { FIELDS, KEY_COLUMNS, ROLES, fieldsOf, fieldsWhere, fieldsWithHtml, type Kind, type Role } from '../../../src/storage/fields.js'
import { createMemoryStorage } from '../../../src/storage/memory.js'
import { CALENDAR_FIELDS, LINKED_CALENDAR_FIELDS } from '../../../src/storage/sequence.js'
import { LINKED_SEARCH_FIELDS, eventSearchText } from '../../../src/storage/search-fields.js'
import { createSqlStorage, openSqliteFile } from '../../../src/storage/sql/index.js'
import { POST_FIELDS, REF_LISTS, newPostColumns, newPostRow } from '../../../src/storage/sql/records.js'
import { filterRecord } from '../../../src/sanitize/storage.js'
import type { NewPost, PostRecord, PostType, Storage } from '../../../src/storage/types.js'
import { newEvent, newOrganizer, newTerm, newVenue } from '../../../src/testing/index.js'

/**
 * The lists as the code held them before the table, with the fields added since marked (issue
 * 26: event status and attendance).
 */
const BEFORE = {
  // resources/series.ts
  SHARED: [
    'title',
    'description',
    'excerpt',
    'status',
    'author',
    'image',
    'timezone',
    'allDay',
    'cost',
    'currencySymbol',
    'currencyPosition',
    'currencyCode',
    'website',
    'showMap',
    'showMapLink',
    'hideFromListings',
    'sticky',
    'featured',
    'venueIds',
    'organizerIds',
    'categoryIds',
    'tagIds',
    // added with issue 26
    'eventStatus',
    'eventStatusReason',
    'attendanceMode',
    'virtualUrl',
    // issue 26, custom fields
    'customFields',
  ],
  // cache/dependencies.ts
  SHOWN_ONLY: [
    'title',
    'description',
    'excerpt',
    'image',
    'cost',
    'currencySymbol',
    'currencyPosition',
    'currencyCode',
    'website',
    'showMap',
    'showMapLink',
    'modified',
    'modifiedUtc',
    'sequence',
    'revision',
    // added with issue 26
    'eventStatusReason',
    'previousStartDate',
    'attendanceMode',
    'virtualUrl',
  ],
  // cache/dependencies.ts and storage/sql/write.ts; search-fields.ts and sql/records.ts spelled it as a template
  EVENT_TEXT: ['title', 'description', 'excerpt', 'customFields'],
  // storage/sql/write.ts
  FILTERED_BY: [
    'venueIds',
    'organizerIds',
    'categoryIds',
    'tagIds',
    'status',
    'language',
    'startDate',
    'endDate',
    'hideFromListings',
    'customFields',
  ],
  WORDS_BY: ['title', 'description', 'excerpt', 'status', 'language', 'startDate', 'hideFromListings', 'customFields'],
  // storage/sql/write.ts (issue 26): the rows of event_custom_values
  CUSTOM_INDEXED: ['customFields'],
  // storage/sql/write.ts, inline in updatePost (and countsKept in cache/dependencies.ts)
  TERM_COUNTED: ['status', 'language', 'categoryIds', 'tagIds'],
  DAY_COUNTED: ['status', 'language', 'startDate', 'endDate', 'hideFromListings'],
  // storage/sequence.ts
  CALENDAR_FIELDS: [
    'title',
    'description',
    'excerpt',
    'status',
    'slug',
    'language',
    'startDate',
    'endDate',
    'startDateUtc',
    'endDateUtc',
    'timezone',
    'allDay',
    'venueIds',
    'organizerIds',
    'categoryIds',
    // added with issue 26
    'eventStatus',
    'attendanceMode',
    'virtualUrl',
    'customFields',
  ],
  LINKED_CALENDAR_FIELDS: {
    venue: ['title', 'status', 'address', 'city', 'country', 'province', 'state', 'stateprovince', 'zip', 'geoLat', 'geoLng'],
    organizer: ['title', 'status', 'email', 'phone'],
  },
  // storage/search-fields.ts
  LINKED_SEARCH_FIELDS: {
    venue: ['title', 'description', 'excerpt', 'address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
    organizer: ['title', 'description', 'excerpt', 'phone', 'email', 'website'],
  },
  // sanitize/storage.ts
  STRUCTURED: [
    'type',
    'taxonomy',
    'language',
    'status',
    'slug',
    'date',
    'dateUtc',
    'modified',
    'modifiedUtc',
    'startDate',
    'endDate',
    'startDateUtc',
    'endDateUtc',
    'timezone',
    'currencyPosition',
    'website',
    // added with issue 26
    'eventStatus',
    'previousStartDate',
    'attendanceMode',
    'virtualUrl',
  ],
  RICH: ['description', 'excerpt'],
  // storage/sql/records.ts: field, column, codec
  POST_FIELDS: {
    common: [
      'language language text',
      'translationGroup translation_group int',
      'author author int',
      'status status text',
      'slug slug text',
      'title title text',
      'description description text',
      'excerpt excerpt text',
      'date post_date text',
      'dateUtc post_date_utc text',
      'modified modified text',
      'modifiedUtc modified_utc text',
      'image image json',
      'customFields custom_fields json',
      'revision revision int',
    ],
    event: [
      'startDate start_date text',
      'endDate end_date text',
      'startDateUtc start_date_utc text',
      'endDateUtc end_date_utc text',
      'timezone timezone_name text',
      'allDay all_day bool',
      'cost cost json',
      'currencySymbol currency_symbol text',
      'currencyPosition currency_position text',
      'currencyCode currency_code text',
      'website website nullableText',
      'showMap show_map bool',
      'showMapLink show_map_link bool',
      'hideFromListings hide_from_listings bool',
      'sticky sticky bool',
      'featured featured bool',
      'parentId parent_id int',
      // added with issue 26
      'eventStatus event_status text',
      'eventStatusReason event_status_reason text',
      'previousStartDate previous_start_date nullableText',
      'attendanceMode attendance_mode text',
      'virtualUrl virtual_url nullableText',
      'sequence ical_sequence int',
      'seriesId series_id int',
      'series series json',
    ],
    venue: [
      'address address text',
      'city city text',
      'country country text',
      'province province text',
      'state state text',
      'zip zip text',
      'phone phone text',
      'stateprovince stateprovince text',
      'website website text',
      'showMap show_map bool',
      'showMapLink show_map_link bool',
      'geoLat geo_lat real',
      'geoLng geo_lng real',
    ],
    organizer: ['phone phone text', 'website website text', 'email email text'],
  },
  // storage/sql/records.ts (LINK_KINDS, TERM_KINDS) and storage/sql/write.ts (REF_KEYS)
  REF_LISTS: { venue: 'venueIds', organizer: 'organizerIds', category: 'categoryIds', tag: 'tagIds' },
}

const sorted = (xs: Iterable<string>) => [...xs].sort()
const POST_TYPES: PostType[] = ['event', 'venue', 'organizer']

describe('field table: its views are the lists it replaced', () => {
  it('event roles', () => {
    expect(sorted(fieldsWhere('event', 'shared'))).toEqual(sorted(BEFORE.SHARED))
    expect(sorted(fieldsWhere('event', 'shownOnly'))).toEqual(sorted(BEFORE.SHOWN_ONLY))
    expect(fieldsWhere('event', 'searched')).toEqual(BEFORE.EVENT_TEXT)
    expect(sorted(fieldsWhere('event', 'filtered'))).toEqual(sorted(BEFORE.FILTERED_BY))
    expect(sorted(fieldsWhere('event', 'indexed'))).toEqual(sorted(BEFORE.WORDS_BY))
    expect(sorted(fieldsWhere('event', 'termCounted'))).toEqual(sorted(BEFORE.TERM_COUNTED))
    expect(sorted(fieldsWhere('event', 'dayCounted'))).toEqual(sorted(BEFORE.DAY_COUNTED))
    expect(sorted(CALENDAR_FIELDS)).toEqual(sorted(BEFORE.CALENDAR_FIELDS))
    expect(fieldsWhere('event', 'customIndexed')).toEqual(BEFORE.CUSTOM_INDEXED)
  })

  it('venue and organizer roles', () => {
    for (const type of ['venue', 'organizer'] as const) {
      expect(sorted(LINKED_CALENDAR_FIELDS[type])).toEqual(sorted(BEFORE.LINKED_CALENDAR_FIELDS[type]))
      expect(sorted(LINKED_SEARCH_FIELDS[type])).toEqual(sorted(BEFORE.LINKED_SEARCH_FIELDS[type]))
      for (const role of ['shared', 'shownOnly', 'filtered', 'indexed', 'customIndexed', 'termCounted', 'dayCounted'] as const) {
        expect(fieldsWhere(type, role), `${type} ${role}`).toEqual([])
      }
    }
  })

  it('the HTML filter: structured and rich fields, and what a write filters with which kind', () => {
    expect(sorted(fieldsWithHtml('structured'))).toEqual(sorted(BEFORE.STRUCTURED))
    expect(sorted(fieldsWithHtml('rich'))).toEqual(sorted(BEFORE.RICH))
    // Every field holding text, as filterRecord sees it: skipped when structured, else rich or inline.
    const seen: Record<string, string> = {}
    const record = Object.fromEntries(Object.keys(FIELDS).map((f) => [f, 'x']))
    filterRecord(record, 'event', (text, info) => ((seen[info.field] = info.kind), text))
    for (const field of Object.keys(FIELDS)) {
      const expected = BEFORE.STRUCTURED.includes(field) ? undefined : BEFORE.RICH.includes(field) ? 'rich' : 'inline'
      expect(seen[field], field).toBe(expected)
    }
  })

  it('stored columns of each post type', () => {
    for (const type of POST_TYPES) {
      const before = [...BEFORE.POST_FIELDS.common, ...BEFORE.POST_FIELDS[type]]
      expect(sorted(POST_FIELDS[type].map((s) => `${s.field} ${s.column} ${s.codec}`))).toEqual(sorted(before))
    }
    expect(KEY_COLUMNS).toEqual(['id', 'type'])
    expect(REF_LISTS).toEqual(BEFORE.REF_LISTS)
  })

  it('the event search haystack is spelled as before', () => {
    const e = newEvent({ title: 'Jazz NIGHT', description: '<p>By the River</p>', excerpt: 'Late' })
    expect(eventSearchText(e)).toBe(`${e.title}\n${e.description}\n${e.excerpt}`.toLowerCase())
  })

  it('every role is played by some field, and the roles hang together', () => {
    const used = new Set<Role>()
    for (const kind of ['event', 'venue', 'organizer', 'term'] as Kind[])
      for (const role of Object.keys(ROLES) as Role[]) {
        if (fieldsWhere(kind, role).length) used.add(role)
      }
    expect(sorted(used)).toEqual(sorted(Object.keys(ROLES)))
    // Lists that filter, search or count by a field cannot leave it out of what they depend on.
    const listed = new Set([...fieldsWhere('event', 'filtered'), ...fieldsWhere('event', 'indexed'), ...fieldsWhere('event', 'dayCounted')])
    for (const f of fieldsWhere('event', 'shownOnly')) {
      if (!fieldsWhere('event', 'searched').includes(f as never)) expect(listed.has(f as never), f).toBe(false)
    }
    // The token index holds the searched text.
    for (const f of fieldsWhere('event', 'searched')) expect(fieldsWhere('event', 'indexed')).toContain(f)
  })
})

const FIXTURES: { [T in PostType]: NewPost<T> } = {
  event: newEvent({
    title: 'Gig',
    venueIds: [1],
    organizerIds: [2],
    categoryIds: [3],
    tagIds: [4],
    cost: ['5'],
    website: 'https://a.example',
  }),
  venue: newVenue({ title: 'Hall', geoLat: 51.5, geoLng: -0.12 }),
  organizer: newOrganizer({ title: 'Org', email: 'org@example.org' }),
}

/** The record each backend hands back for the fixture of `type`, as stored and read again. */
async function stored(storage: Storage, type: PostType): Promise<PostRecord> {
  const { id } = await storage.transaction((tx) => tx.insertPost(FIXTURES[type] as NewPost))
  return (await storage.getPost(id))!
}

describe('field table: what the backends store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-fields-'))
  const file = join(dir, 'calendar.db')
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('declares exactly the fields of the records each backend hands back', async () => {
    const sqlite = createSqlStorage({ driver: await openSqliteFile(file) })
    await sqlite.migrate()
    const memory = createMemoryStorage()
    try {
      for (const storage of [memory, sqlite]) {
        for (const type of POST_TYPES) {
          const keys = Object.keys(await stored(storage, type))
          // The memory backend keeps a lone event's optional series fields absent.
          const optional = storage === memory && type === 'event' ? ['seriesId', 'series'] : []
          expect(sorted(keys), type).toEqual(sorted(fieldsOf(type).filter((f) => !optional.includes(f) || keys.includes(f))))
        }
      }
      const term = await memory.transaction((tx) => tx.insertTerm(newTerm()))
      expect(sorted(Object.keys(term))).toEqual(sorted(fieldsOf('term')))
    } finally {
      await sqlite.close()
    }
  })

  it('names columns the migrated SQLite schema has, and declares every column of posts', () => {
    const db = new Database(file, { readonly: true })
    try {
      const columns = (db.prepare('PRAGMA table_info(posts)').all() as { name: string }[]).map((c) => c.name)
      const declared = new Set([...KEY_COLUMNS, ...POST_TYPES.flatMap((t) => POST_FIELDS[t].map((s) => s.column))])
      for (const c of declared) expect(columns, c).toContain(c)
      // search_text is derived from the searched fields (newPostRow), not a field of its own.
      expect(sorted(columns.filter((c) => !declared.has(c)))).toEqual(['search_text'])
    } finally {
      db.close()
    }
  })

  it('builds a new row with one value per column, the text index from the searched fields', () => {
    for (const type of POST_TYPES) {
      for (const id of [undefined, 41]) {
        const { columns, kinds } = newPostColumns(type, id !== undefined)
        const row = newPostRow(FIXTURES[type] as NewPost, id)
        expect(row).toHaveLength(columns.length)
        expect(kinds).toHaveLength(columns.length)
        const at = (c: string) => row[columns.indexOf(c)]
        expect(at('type')).toBe(type)
        // A record without a group starts its own: the id when known, else 0 until the insert gives it.
        expect(at('translation_group')).toBe(id ?? 0)
        if (id !== undefined) expect(at('id')).toBe(id)
      }
    }
    const event = newPostRow(FIXTURES.event)
    const { columns } = newPostColumns('event', false)
    expect(event[columns.indexOf('search_text')]).toBe(eventSearchText(FIXTURES.event))
    expect(event[columns.indexOf('ical_sequence')]).toBe(0)
    expect(event[columns.indexOf('revision')]).toBe(0)
  })
})
