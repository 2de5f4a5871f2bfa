/**
 * The SQL event list's planner on its own: the plans of typical queries, on both dialects,
 * without a database (the planner gets no connection at all, so a plan that read something
 * would throw). Whether the plans select the right rows is storage-sql-parity.test.ts's job.
 */
import { describe, expect, it } from 'vitest'
import type { EventListQuery } from '../../../src/storage/types.js'
import { postgresDialect, sqliteDialect, type Dialect } from '../../../src/storage/sql/dialect.js'
import type { SqlParam } from '../../../src/storage/sql/driver.js'
import type { CustomRef } from '../../../src/storage/sql/custom-values.js'
import {
  planEventList,
  startFloorStatement,
  withStartFloor,
  type EventListPlan,
  type PlanInputs,
  type TextIndex,
} from '../../../src/storage/sql/event-list-plan.js'

const DIALECTS: Array<[string, Dialect]> = [
  ['sqlite', sqliteDialect],
  ['postgres', postgresDialect],
]

/** Every value a caller can put in a query, each one that SQL text could never hold by chance. */
const LANG = 'zz-sentinel'
const base: EventListQuery = {
  language: LANG,
  statuses: ['publish'],
  startGte: '2031-07-14 00:00:00',
  endLte: '2031-08-19 23:59:59',
  orderBy: 'start',
  offset: 20,
  limit: 10,
}
const SENTINELS = [LANG, '2031-07-14', '2031-08-19', '987', 'qqzyx', 'wvutq', 'kzsentinel', 'vzsentinel', '13:47:21']

const plan = (d: Dialect, q: EventListQuery, more: Partial<PlanInputs> = {}): EventListPlan =>
  planEventList({ dialect: d, records: null }, { q, custom: { refs: [], driving: false }, index: null, ...more })

/** The custom field refs customFieldRefs would hand in for these filters (its SQL, without the counting). */
function customRefs(d: Dialect, filters: Array<{ key: string; values: string[] }>): CustomRef[] {
  return filters.map((f) => ({
    sql: `FROM event_custom_values x WHERE x.field_key = ? AND ${d.inList('x.field_value', 'text')}`,
    params: [f.key, d.list(f.values)],
    filter: f,
  }))
}

/** A text index that answers nothing: the plan only carries it to the executor. */
const fakeIndex = (exact: boolean): TextIndex => ({
  exact,
  keys: true,
  classes: () => Promise.reject(new Error('a plan must not read')),
  matches: () => ({ sql: '(SELECT 1 AS id) m', params: [] }),
  windowed: null,
})

/** `?` placeholders outside quoted strings (the way the PostgreSQL dialect numbers them). */
function placeholders(sql: string): number {
  return (postgresDialect.sql(sql).match(/\$\d+/g) ?? []).length
}

/** Every statement a plan holds, as text and parameters. */
function statements(p: EventListPlan): Array<{ sql: string; params: readonly SqlParam[] }> {
  switch (p.kind) {
    case 'page':
      return [p.page, ...(p.count ? [p.count] : [])]
    case 'firstOfSeries':
      return [p.matches]
    case 'search': {
      const s = p.search
      const where = (w: { clauses: string[]; params: SqlParam[] }) => ({ sql: w.clauses.join(' AND '), params: w.params })
      return [
        where(s.all),
        ...(s.keyed ? [where(s.keyed)] : []),
        { sql: `${s.source.from} WHERE ${s.source.where}`, params: [...(s.source.fromParams ?? []), ...s.source.where.params] },
      ]
    }
  }
}

/** Typical queries, each a different shape of plan, with every kind of value the list takes. */
const SHAPES: Array<[string, EventListQuery, (d: Dialect) => Partial<PlanInputs>]> = [
  ['a whole-day window', base, () => ({})],
  ['a window to the second', { ...base, startGte: '2031-07-14 13:47:21' }, () => ({})],
  ['an id list by date', { ...base, include: [987001, 987002], orderBy: 'date' }, () => ({})],
  ['one venue', { ...base, venueIds: [987003] }, () => ({})],
  ['one venue, several statuses', { ...base, venueIds: [987003], statuses: ['publish', 'private'] }, () => ({})],
  [
    'venues, organizers, categories and tags',
    { ...base, venueIds: [987004, 987005], organizerIds: [987006], categoryIds: [987007], tagIds: [987008, 987009] },
    () => ({}),
  ],
  [
    'columns of the post',
    { ...base, unpublishedAuthor: 987010, featured: true, eventStatuses: ['canceled'], parentId: 987011, idAfter: 987012, orderBy: 'id' },
    () => ({}),
  ],
  ['series firsts by columns', { ...base, firstOfSeries: true, featured: false }, () => ({})],
  ['series firsts of a category', { ...base, firstOfSeries: true, categoryIds: [987013] }, () => ({})],
  ['a search without an index', { ...base, search: 'QQZYX  wvutq qqzyx' }, () => ({})],
  ['a search through an index', { ...base, search: 'qqzyx', tagIds: [987014] }, () => ({ index: fakeIndex(true) })],
  [
    'a rare custom field value',
    { ...base, customFields: [{ key: 'kzsentinel', values: ['vzsentinel'] }] },
    (d) => ({ custom: { refs: customRefs(d, [{ key: 'kzsentinel', values: ['vzsentinel'] }]), driving: true } }),
  ],
  [
    'a common custom field value',
    { ...base, customFields: [{ key: 'kzsentinel', values: ['vzsentinel', 'vzsentinel2'] }] },
    (d) => ({ custom: { refs: customRefs(d, [{ key: 'kzsentinel', values: ['vzsentinel', 'vzsentinel2'] }]), driving: false } }),
  ],
  ['a wide geofence', { ...base, categoryIds: [987015] }, () => ({ wide: Array.from({ length: 300 }, (_, i) => 987100 + i) })],
  ['a sync page', { ...base, include: [987016], orderBy: 'id', uncounted: true }, () => ({})],
]

describe.each(DIALECTS)('event list plans (%s)', (_name, d) => {
  it.each(SHAPES)('%s: no value in the SQL text, one parameter per placeholder', (_shape, q, more) => {
    const p = plan(d, q, more(d))
    for (const s of statements(p)) {
      for (const value of SENTINELS) expect(s.sql).not.toContain(value)
      expect(placeholders(s.sql)).toBe(s.params.length)
    }
    // The values are not dropped either: each one the query holds reaches a parameter.
    const params = JSON.stringify(statements(p).flatMap((s) => s.params))
    expect(params).toContain(LANG)
    for (const id of [...(q.venueIds ?? []), ...(q.categoryIds ?? []), ...(q.tagIds ?? []), ...(q.include ?? [])]) {
      expect(params).toContain(String(id))
    }
  })

  it('a plain whole-day window: the posts in start order, counted from the day counters', () => {
    const p = plan(d, base)
    expect(p.kind).toBe('page')
    if (p.kind !== 'page') return
    expect(p.page.sql).toMatch(/FROM posts p WHERE p\.type = 'event' AND p\.hide_from_listings = FALSE AND p\.language = \?/)
    expect(p.page.sql).toMatch(/ORDER BY p\.start_date, p\.id LIMIT \? OFFSET \?$/)
    expect(p.page.params).toEqual([LANG, 'publish', '2031-07-14 00:00:00', '2031-08-19 23:59:59', 10, 20])
    expect(p.count?.sql).toContain('FROM event_day_counts c')
    expect(p.count?.params).toEqual([LANG, 'publish', '2031-07-14', '2031-08-19'])
  })

  it('a window to the second counts the rows themselves', () => {
    const p = plan(d, { ...base, startGte: '2031-07-14 13:47:21' })
    if (p.kind !== 'page') throw new Error(p.kind)
    expect(p.count?.sql).toMatch(/^SELECT count\(\*\) AS n FROM posts p WHERE/)
  })

  it('one venue walks its range of event_filters in list order', () => {
    const p = plan(d, { ...base, venueIds: [987003] })
    if (p.kind !== 'page') throw new Error(p.kind)
    expect(p.page.sql).toContain('FROM event_filters f CROSS JOIN posts p')
    expect(p.page.sql).toContain('ORDER BY f.start_date, f.event_id LIMIT')
    expect(p.count?.sql).toContain('event_filter_day_counts')
  })

  it('two venues drive the list through their links, the terms probed per row', () => {
    const p = plan(d, { ...base, venueIds: [987004, 987005], categoryIds: [987007, 987017] })
    if (p.kind !== 'page') throw new Error(p.kind)
    expect(p.page.sql).toContain("(SELECT DISTINCT x.event_id FROM event_links x WHERE x.kind = 'venue'")
    expect(p.page.sql).toContain("EXISTS (SELECT 1 FROM event_terms x WHERE x.kind = 'category'")
  })

  it('series firsts over a category read the matches and group them afterwards', () => {
    const p = plan(d, { ...base, firstOfSeries: true, categoryIds: [987013, 987018] })
    expect(p.kind).toBe('firstOfSeries')
    if (p.kind !== 'firstOfSeries') return
    expect(p.matches.sql).toMatch(/^SELECT p\.id, p\.series_id, p\.start_date FROM posts p WHERE /)
    expect(p.matches.sql).not.toContain('LIMIT')
  })

  it('series firsts by columns are decided per row, and counted as the list less its later members', () => {
    const p = plan(d, { ...base, firstOfSeries: true })
    if (p.kind !== 'page') throw new Error(p.kind)
    expect(p.page.sql).toContain('(p.series_id = 0 OR NOT EXISTS (SELECT 1 FROM posts s WHERE s.series_id = p.series_id')
    expect(p.count?.sql).toContain('count(DISTINCT p.series_id)')
    // Only SQLite is told which index to walk; PostgreSQL plans from its statistics.
    expect(p.count?.sql.includes('INDEXED BY posts_series')).toBe(d.name === 'sqlite')
  })

  it('a search through an index hands the executor the list it filters', () => {
    const index = fakeIndex(true)
    const p = plan(d, { ...base, search: 'qqzyx' }, { index })
    expect(p.kind).toBe('search')
    if (p.kind !== 'search') return
    expect(p.index).toBe(index)
    expect(p.search.grouped).toBe(false)
    expect(p.search.keyed?.params).toEqual([LANG, 'publish', '2031-07-14 00:00:00', '2031-08-19 23:59:59'])
    expect(p.search.order).toBe('p.start_date, p.id')
  })

  it('a sync page needs no count', () => {
    const p = plan(d, { ...base, include: [987016], orderBy: 'id', uncounted: true })
    if (p.kind !== 'page') throw new Error(p.kind)
    expect(p.count).toBeNull()
  })
})

describe('dialect differences', () => {
  it('an id list: a JSON array read by json_each on SQLite, a bigint array on PostgreSQL', () => {
    const q = { ...base, include: [987001, 987002] }
    const lite = plan(sqliteDialect, q)
    const pg = plan(postgresDialect, q)
    if (lite.kind !== 'page' || pg.kind !== 'page') throw new Error('not a page')
    expect(lite.page.sql).toContain('SELECT value AS event_id FROM json_each(?)')
    expect(lite.page.params).toContain('[987001,987002]')
    expect(pg.page.sql).toContain('SELECT i AS event_id FROM unnest(?::bigint[]) AS i')
    expect(pg.page.params).toContainEqual([987001, 987002])
  })

  it('a search word without an index: instr on SQLite, a LIKE pattern the trigram index serves on PostgreSQL', () => {
    const q = { ...base, search: 'qqzyx' }
    const lite = plan(sqliteDialect, q)
    const pg = plan(postgresDialect, q)
    if (lite.kind !== 'page' || pg.kind !== 'page') throw new Error('not a page')
    expect(lite.page.sql).toContain('instr(p.search_text, ?) > 0')
    expect(lite.page.params).toContain('qqzyx')
    expect(pg.page.sql).toContain("p.search_text LIKE ? ESCAPE '\\'")
    expect(pg.page.params).toContain('%qqzyx%')
  })

  it('the same query plans to the same portable text but for those helpers', () => {
    const lite = plan(sqliteDialect, base)
    const pg = plan(postgresDialect, base)
    if (lite.kind !== 'page' || pg.kind !== 'page') throw new Error('not a page')
    expect(pg.count).toEqual(lite.count)
    expect(pg.page.params).toEqual(lite.page.params)
  })
})

/** A calendar's month view: every event overlapping March 2031 (ends_after, starts_before). */
const overlap: EventListQuery = {
  language: LANG,
  statuses: ['publish'],
  endGt: '2031-03-01 23:59:59',
  startLt: '2031-03-31 23:59:59',
  orderBy: 'start',
  offset: 50,
  limit: 50,
}

describe('an overlap window is bounded below by the earliest start of an event ending in it', () => {
  it('reads, per status, the first start day of event_day_counts among rows ending on the day of ends_after or later', () => {
    const st = startFloorStatement({ ...overlap, statuses: ['publish', 'draft', 'publish'] })
    expect(st).not.toBeNull()
    const subqueries = st!.sql.match(
      /FROM event_day_counts c WHERE c\.language = \? AND c\.status = \? AND c\.end_day >= \? AND c\.n > 0\s+ORDER BY c\.start_day LIMIT 1/g,
    )
    expect(subqueries).toHaveLength(2)
    expect(st!.params).toEqual([LANG, 'publish', '2031-03-01', LANG, 'draft', '2031-03-01'])
    expect(placeholders(st!.sql)).toBe(st!.params.length)
    for (const value of SENTINELS) expect(st!.sql).not.toContain(value)
  })

  it('reads nothing without ends_after, for an id list, or without statuses', () => {
    expect(startFloorStatement(base)).toBeNull()
    expect(startFloorStatement({ ...overlap, include: [987001] })).toBeNull()
    expect(startFloorStatement({ ...overlap, statuses: [] })).toBeNull()
  })

  it('the earliest of the statuses bounds the start; a later start_date bound is kept', () => {
    expect(withStartFloor(overlap, ['2031-02-27', '2029-05-01']).startGte).toBe('2029-05-01 00:00:00')
    expect(withStartFloor(overlap, [null, '2031-02-28']).startGte).toBe('2031-02-28 00:00:00')
    const later = { ...overlap, startGte: '2031-03-10 08:00:00' }
    expect(withStartFloor(later, ['2031-02-28'])).toBe(later)
    expect(withStartFloor({ ...overlap, startGte: '2020-01-01 00:00:00' }, ['2031-02-28']).startGte).toBe('2031-02-28 00:00:00')
  })

  it('an event without a start (day "") leaves the query unbounded; no event ending that late bounds at the day itself', () => {
    expect(withStartFloor(overlap, ['', '2031-02-28'])).toBe(overlap)
    expect(withStartFloor(overlap, [null]).startGte).toBe('2031-03-01 00:00:00')
    expect(withStartFloor(base, ['2031-02-28'])).toBe(base)
  })

  it.each(DIALECTS)('the bounded window walks one start_date range of the posts, page and count (%s)', (_name, d) => {
    const p = plan(d, withStartFloor(overlap, ['2031-02-28']))
    if (p.kind !== 'page') throw new Error(p.kind)
    for (const s of [p.page, p.count!]) {
      expect(s.sql).toContain('p.start_date >= ? AND p.start_date < ? AND p.end_date > ?')
      expect(s.params).toEqual(expect.arrayContaining(['2031-02-28 00:00:00', '2031-03-31 23:59:59', '2031-03-01 23:59:59']))
    }
    // ends_after is not a whole-day bound the day counters answer: the count reads the (now short) range.
    expect(p.count!.sql).toMatch(/^SELECT count\(\*\) AS n FROM posts p WHERE/)
  })
})
