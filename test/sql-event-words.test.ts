/**
 * PostgreSQL's event token index (src/storage/sql/event-words.ts): postings of whitespace-separated
 * tokens keyed by class and start day. Its totals and pages must be the memory backend's over
 * every kind of window and after every write that moves an event's key or text; tokens must split
 * exactly where JavaScript's `\s` does (no more, no less); a word matching too many tokens falls
 * back to the scan; concurrent writers of one new token agree on it; an older database is
 * backfilled by the migration, and a windowed count reads the postings' primary key alone.
 */
import assert from 'node:assert/strict'
import pg from 'pg'
import { afterAll, it } from 'vitest'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, pgDriver, type SqlDriver, type SqlStorage } from '../src/storage/sql/index.js'
import type { EventListQuery, Storage } from '../src/storage/types.js'
import { newEvent } from '../src/testing/index.js'
import { admin, url, pgDescribe } from './support/pg-schema.js'
import { recording } from './support/sql-checks.js'
import { at, fill, same, shuffle } from './support/event-search-cases.js'

afterAll(() => admin?.end())
let n = 0

/** A storage in a schema of its own, its driver recorded; `drop` removes the schema. */
async function storage(schema = `words_${process.pid}_${++n}`, create = true) {
  if (create) await admin!.query(`CREATE SCHEMA ${schema}`)
  const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` })
  const { driver, seen } = recording(pgDriver(pool) as SqlDriver)
  const s = createSqlStorage({ driver })
  return { s, seen, pool, schema, drop: () => admin!.query(`DROP SCHEMA ${schema} CASCADE`) }
}

const query = (search: string, extra: Partial<EventListQuery> = {}): EventListQuery => ({
  language: 'en',
  statuses: ['publish'],
  orderBy: 'start',
  offset: 0,
  limit: 50,
  search,
  ...extra,
})

async function sameAnswers(a: Storage, b: Storage, searches: string[], label: string) {
  for (const search of searches) {
    const [x, y] = [await a.listEvents(query(search)), await b.listEvents(query(search))]
    assert.equal(x.total, y.total, `${label}: total of ${JSON.stringify(search)}`)
    assert.deepEqual(
      x.items.map((e) => e.slug),
      y.items.map((e) => e.slug),
      `${label}: page of ${JSON.stringify(search)}`,
    )
  }
}

/**
 * Texts of every shape a tokenizer could split differently (each code point JavaScript calls
 * whitespace, and neighbours it does not: NEL, the zero-width space, the Mongolian vowel
 * separator that older Unicode called a space), and searches that would notice.
 */
const TEXTS = [
  'alpha\u00a0beta\u3000gamma\u2028delta\tepsilon\u000bzeta\ufeffeta',
  'nel\u0085joined zw\u200bjoined mvs\u180ejoined',
  '<p>Caf\u00e9 &amp; "quoted" 100%_off back\\slash</p>',
  `long${'x'.repeat(5000)}tail`,
  'lone\ud800surrogate and \ud83d\ude00 emoji',
  'MiXeD CaSe Ωmega ΣΊΣΥΦΟΣ',
]
const SEARCHES = [
  'beta',
  'a\u00a0b',
  'gamma delta',
  'lpha',
  'eta',
  'nel\u0085joined',
  'l\u0085j',
  'zw\u200bj',
  'mvs\u180e',
  'café',
  '&amp;',
  '"quoted"',
  '100%',
  '%_',
  'k\\s',
  '_off',
  'x'.repeat(3000),
  `${'x'.repeat(10)}tail`,
  'lone\ud800',
  '\ud800s',
  '\ud83d\ude00',
  'ωmega',
  'σίσυφος',
  'ΣΊΣ',
  't',
  'to',
  'test 3',
  'nothing-here',
]

async function fillTexts(x: Storage) {
  await x.transaction(async (tx) => {
    for (const [i, description] of TEXTS.entries()) await tx.insertPost(newEvent({ slug: `t${i}`, title: `Token test ${i}`, description }))
  })
}

pgDescribe('postgres event token index', () => {
  it('totals and pages equal the memory backend over every kind of window, before and after writes', async () => {
    const { s, seen, drop } = await storage()
    const memory = createMemoryStorage()
    const ids = await s.transaction((tx) => fill(tx, 7, 400))
    await memory.transaction((tx) => fill(tx, 7, 400))
    await same(s, memory, 'fresh')
    // The windowed count read the postings; a window's edge days were looked up in posts.
    assert.ok(
      seen.some((x) => /count\(\*\)/.test(x.sql) && /FROM event_words e/.test(x.sql) && !/FROM posts p WHERE p.id = m.k/.test(x.sql)),
    )
    assert.ok(
      seen.some((x) => /count\(\*\)/.test(x.sql) && /FROM event_words e/.test(x.sql) && /FROM posts p WHERE p.id = m.k/.test(x.sql)),
    )
    await s.transaction((tx) => shuffle(tx, ids))
    await memory.transaction((tx) => shuffle(tx, ids))
    await same(s, memory, 'after writes')
    await s.close()
    await drop()
  })

  it('an event stored ending before it starts keeps the totals exact', async () => {
    const { s, drop } = await storage()
    const memory = createMemoryStorage()
    const odd = { slug: 'odd', title: 'zephyr jazz', startDate: '2027-06-10 10:00:00', endDate: '2027-01-07 10:00:00' }
    for (const x of [s, memory] as Storage[])
      await x.transaction(async (tx) => {
        await fill(tx, 3, 120)
        await tx.insertPost(newEvent(odd))
      })
    await same(s, memory, 'inverted')
    await s.close()
    await drop()
  })

  it('splits tokens exactly where JavaScript’s \\s does, for texts of every shape', async () => {
    const { s, drop } = await storage()
    const memory = createMemoryStorage()
    for (const x of [s, memory] as Storage[]) await fillTexts(x)
    await sameAnswers(s, memory, SEARCHES, 'tokens')
    // After edits that move tokens in and out.
    for (const x of [s, memory] as Storage[])
      await x.transaction(async (tx) => {
        const page = await tx.listEvents(query('token test'))
        for (const e of page.items.slice(0, 3)) await tx.updatePost(e.id, 'event', { description: `${e.description} beta\u00a0omega` })
      })
    await sameAnswers(s, memory, [...SEARCHES, 'omega', 'beta omega'], 'after edits')
    await s.close()
    await drop()
  })

  it('a word matching more tokens than the index takes is answered by the scan, exactly', async () => {
    const { s, seen, drop } = await storage()
    const memory = createMemoryStorage()
    const many = Array.from({ length: 2100 }, (_, i) => `q${String(i).padStart(4, '0')}`).join(' ')
    for (const x of [s, memory] as Storage[])
      await x.transaction(async (tx) => {
        await tx.insertPost(newEvent({ slug: 'many', title: 'Many tokens', description: many }))
        await tx.insertPost(newEvent({ slug: 'few', title: 'q0001 only' }))
      })
    const usesIndex = async (search: string) => {
      seen.length = 0
      await sameAnswers(s, memory, [search], 'many tokens')
      return seen.some((x) => /event_words/.test(x.sql))
    }
    // q0 matches 1000 tokens: the index; q matches 2101: the list's rows are tested instead.
    for (const search of ['q0', 'q0001', 'q2', 'q20']) assert.equal(await usesIndex(search), true, search)
    assert.equal(await usesIndex('q'), false)
    await s.close()
    await drop()
  })

  it('writers adding the same new token at once agree on one vocabulary row', async () => {
    const a = await storage()
    const b = await storage(a.schema, false)
    await a.s.listEvents(query('warm')) // migrated before the race
    const write = (x: SqlStorage, i: number) =>
      x.transaction((tx) => tx.insertPost(newEvent({ slug: `race-${i}`, title: `Brandnewtoken${i % 3} race` })))
    await Promise.all(Array.from({ length: 12 }, (_, i) => write(i % 2 ? a.s : b.s, i)))
    const { rows } = await admin!.query(
      `SELECT token, count(*)::int AS n FROM ${a.schema}.search_words WHERE token LIKE 'brandnew%' GROUP BY token`,
    )
    assert.deepEqual(rows.map((r) => [r.token, r.n]).sort(), [
      ['brandnewtoken0', 1],
      ['brandnewtoken1', 1],
      ['brandnewtoken2', 1],
    ])
    assert.equal((await a.s.listEvents(query('brandnew'))).total, 12)
    assert.equal((await b.s.listEvents(query('newtoken1'))).total, 4)
    await b.s.close()
    await a.s.close()
    await a.drop()
  })

  it('a plain windowed count reads the postings’ primary key alone', async () => {
    const { s, seen, pool, drop } = await storage()
    await s.transaction(async (tx) => {
      for (let i = 0; i < 30; i++)
        await tx.insertPost(
          newEvent({ slug: `z${i}`, title: i % 3 ? 'Zephyr night' : 'Brunch', startDate: at(i, 600), endDate: at(i, 660) }),
        )
    })
    seen.length = 0
    const page = await s.listEvents(query('zephyr', { startGte: '2027-01-05 00:00:00', endLte: '2027-01-24 23:59:59', limit: 5 }))
    const want = Array.from({ length: 20 }, (_, k) => k + 4).filter((i) => i % 3).length
    assert.equal(page.total, want)
    const counted = seen.filter((x) => /count\(\*\)/.test(x.sql) && /event_words/.test(x.sql))
    assert.equal(counted.length, 1, 'one count statement')
    assert.doesNotMatch(counted[0]!.sql, /posts/)
    const client = await pool.connect()
    try {
      await client.query('SET enable_seqscan = off')
      await client.query('VACUUM event_words')
      const plan = (await client.query(`EXPLAIN ${counted[0]!.sql}`, counted[0]!.params as unknown[])).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n')
      assert.match(plan, /Index Only Scan using event_words_pkey/)
      assert.doesNotMatch(plan, /posts/)
    } finally {
      client.release()
    }
    await s.close()
    await drop()
  })

  it('migrating a version-13 schema fills the postings of the events already there', async () => {
    const a = await storage()
    const memory = createMemoryStorage()
    for (const x of [a.s, memory] as Storage[]) {
      await x.transaction((tx) => fill(tx, 11, 150))
      await fillTexts(x)
    }
    await a.s.close()
    await admin!.query(
      `DROP TABLE ${a.schema}.event_words, ${a.schema}.search_words, ${a.schema}.event_word_classes;
       DELETE FROM ${a.schema}.calendar_migrations WHERE version >= 14`,
    )
    const b = await storage(a.schema, false)
    await same(b.s, memory, 'migrated')
    // The backfill tokenizes in SQL: the same tokens as JavaScript's \s+.
    await sameAnswers(b.s, memory, SEARCHES, 'migrated tokens')
    assert.ok(
      b.seen.some((x) => /event_words/.test(x.sql) && /SELECT/.test(x.sql)),
      'reads use the backfilled postings',
    )
    const { rows } = await admin!.query(
      `SELECT count(*)::int AS n FROM ${a.schema}.posts WHERE type = 'event' AND NOT hide_from_listings AND strpos(search_text, 'jazz') > 0`,
    )
    const { rows: posted } = await admin!.query(
      `SELECT count(DISTINCT e.k)::int AS n FROM ${a.schema}.event_words e JOIN ${a.schema}.search_words w ON w.id = e.word_id WHERE w.token LIKE '%jazz%'`,
    )
    assert.equal(posted[0].n, rows[0].n)
    const extra = { slug: 'late', title: 'Late jazz', startDate: '2027-01-08 10:00:00', endDate: '2027-01-08 11:00:00' }
    await b.s.transaction((tx) => tx.insertPost(newEvent(extra)))
    await memory.transaction((tx) => tx.insertPost(newEvent(extra)))
    await same(b.s, memory, 'migrated, then written')
    await b.s.close()
    await b.drop()
  })
})

pgDescribe('postgres without what the token index needs', () => {
  it('logs one line, creates no tables, and search reads the trigram index as before', async () => {
    const schema = `nowords_${process.pid}_${++n}`
    await admin!.query(`CREATE SCHEMA ${schema}`)
    const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` })
    // An engine speaking PostgreSQL's protocol without sha256(): the migration's check fails (it
    // runs through the driver the migration lock hands out, so that one is wrapped too).
    const withoutSha256 = (real: SqlDriver): SqlDriver => ({
      ...real,
      migrationLock: (fn) => real.migrationLock!((locked) => fn(withoutSha256(locked))),
      read: (fn) =>
        real.read((c) =>
          fn({
            ...c,
            query: (sql, params) =>
              /length\(sha256/.test(sql) ? Promise.reject(new Error('function sha256(bytea) does not exist')) : c.query(sql, params),
          }),
        ),
    })
    const driver = withoutSha256(pgDriver(pool))
    const lines: string[] = []
    const s = createSqlStorage({ driver, log: (line) => lines.push(line) })
    const memory = createMemoryStorage()
    for (const x of [s, memory] as Storage[]) await fillTexts(x)
    assert.deepEqual(lines, [
      'calendar storage: this server cannot build the event token index (function sha256(bytea) does not exist); event search reads the trigram index of posts',
    ])
    const { rows } = await admin!.query(`SELECT to_regclass('${schema}.event_words') AS t, to_regclass('${schema}.search_words') AS w`)
    assert.deepEqual(rows[0], { t: null, w: null })
    await sameAnswers(s, memory, SEARCHES, 'without the index')
    await s.close()
    await admin!.query(`DROP SCHEMA ${schema} CASCADE`)
  })
})
