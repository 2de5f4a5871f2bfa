/**
 * The SQL read paths' own mechanics: SQLite rows read as one packed JSON array per post must give
 * back exactly what was stored (text that JSON escapes, coordinates to the last digit, JSON and
 * boolean columns), and the PostgreSQL driver must name each statement text for reuse, one name
 * per text, and send plain text when told not to.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'vitest'
import { createSqlStorage, openSqliteFile, pgDriver, type PgPool, type PgPoolClient, type PgQueryConfig } from '../src/storage/sql/index.js'
import type { LinkedListQuery } from '../src/storage/types.js'
import { eventQuery, newEvent, newOrganizer, newTerm, newVenue } from '../src/testing/index.js'

// Everything JSON has to escape or that a lossy path would mangle.
const AWKWARD =
  'quote " backslash \\ slash / newline \n tab \t control \u0001\u001f del \u007f emoji 😀 accents éß 中文 </script> \u2028\u2029'

describe('SQLite packed post rows', () => {
  it('read back every field exactly, through each read that returns posts', async () => {
    const storage = createSqlStorage({ driver: await openSqliteFile(':memory:') })
    try {
      const stored = await storage.transaction(async (tx) => {
        const venue = await tx.insertPost(
          newVenue({
            slug: 'v',
            title: AWKWARD,
            description: `<p>${AWKWARD}</p>`,
            city: 'Zürich',
            geoLat: 47.376886987654321,
            geoLng: -8.541694123456789e-1,
          }),
        )
        const organizer = await tx.insertPost(newOrganizer({ slug: 'o', title: 'Ørgan "izer"', email: 'a@example.org' }))
        const term = await tx.insertTerm(newTerm({ name: AWKWARD, slug: 'awkward' }))
        const event = await tx.insertPost(
          newEvent({
            slug: 'e',
            title: AWKWARD,
            description: `<h2>${AWKWARD}</h2>`.repeat(50),
            excerpt: AWKWARD,
            cost: ['5', '10.50'],
            currencySymbol: '€',
            website: 'https://example.org/?a=1&b="2"',
            image: { url: 'https://example.org/i.png', id: 7, width: 640, height: 480 },
            allDay: true,
            featured: true,
            sticky: true,
            venueIds: [venue.id],
            organizerIds: [organizer.id],
            categoryIds: [term.id],
          }),
        )
        return { venue, organizer, event }
      })
      assert.deepEqual(await storage.getPost(stored.event.id), stored.event)
      assert.deepEqual(await storage.getPost(stored.venue.id), stored.venue)
      assert.deepEqual(await storage.getPosts([stored.organizer.id, stored.venue.id, stored.event.id]), [
        stored.organizer,
        stored.venue,
        stored.event,
      ])
      assert.deepEqual(await storage.findPostBySlug('venue', 'en', 'v'), stored.venue)
      assert.deepEqual((await storage.listEvents(eventQuery({ startGte: '2027-01-01 00:00:00' }))).items, [stored.event])
      const linked: LinkedListQuery = { language: 'en', statuses: ['publish'], offset: 0, limit: 10 }
      assert.deepEqual((await storage.listLinked('venue', linked)).items, [stored.venue])
      // The coordinates are not rounded on the way (SQLite before 3.43 writes 15 digits into JSON).
      const venue = (await storage.getPost(stored.venue.id)) as typeof stored.venue
      assert.equal(venue.geoLat, 47.376886987654321)
      assert.equal(venue.geoLng, -8.541694123456789e-1)
    } finally {
      await storage.close()
    }
  })
})

/** A pg.Pool stand-in that records what the driver sends and answers with no rows. */
function fakePool() {
  const sent: (string | PgQueryConfig)[] = []
  const answer = async (query: string | PgQueryConfig) => {
    sent.push(query)
    return { rows: [], rowCount: 0 }
  }
  const client: PgPoolClient = { query: answer, release: () => undefined, on: () => client, removeListener: () => client }
  const pool: PgPool = { query: answer, connect: async () => client, end: async () => undefined, on: () => pool }
  return { pool, sent }
}

describe('PostgreSQL prepared statements', () => {
  it('gives each statement text one name, reused on every call and inside transactions', async () => {
    const { pool, sent } = fakePool()
    const driver = pgDriver(pool)
    await driver.read((c) => c.query('SELECT 1 WHERE $1 = 1', [1]))
    await driver.read((c) => c.query('SELECT 2', []))
    await driver.read((c) => c.query('SELECT 1 WHERE $1 = 1', [2]))
    await driver.transaction((c) => c.run('SELECT 2', []))
    const named = sent.filter((q): q is PgQueryConfig => typeof q === 'object')
    assert.deepEqual(
      named.map((q) => q.text),
      ['SELECT 1 WHERE $1 = 1', 'SELECT 2', 'SELECT 1 WHERE $1 = 1', 'SELECT 2'],
    )
    assert.deepEqual(
      named.map((q) => q.values),
      [[1], [], [2], []],
    )
    const [a, b, c, d] = named.map((q) => q.name)
    assert.ok(a && b && a !== b)
    assert.equal(c, a)
    assert.equal(d, b)
    // The writers' table, BEGIN, its lock, COMMIT and the commit's position go as plain text.
    assert.deepEqual(
      sent.filter((q) => typeof q === 'string'),
      [
        'CREATE TABLE IF NOT EXISTS calendar_writer (held boolean)',
        'BEGIN ISOLATION LEVEL SERIALIZABLE',
        'LOCK TABLE calendar_writer IN EXCLUSIVE MODE',
        'COMMIT',
        'SELECT pg_current_wal_insert_lsn()::text AS lsn',
      ],
    )
  })

  it('never names a pattern match: PostgreSQL plans each search for its own pattern', async () => {
    const { pool, sent } = fakePool()
    const driver = pgDriver(pool)
    const search = `SELECT count(*) FROM posts p WHERE p.search_text LIKE $1 ESCAPE '\\'`
    for (let k = 0; k < 7; k++) await driver.read((c) => c.query(search, [`%word${k}%`]))
    await driver.read((c) => c.query('SELECT 1 WHERE $1 = 1', [1]))
    assert.deepEqual(
      sent.map((q) => (typeof q === 'string' ? 'plain' : 'named')),
      [...Array(7).fill('plain'), 'named'],
    )
  })

  it('sends plain text with preparedStatements: false', async () => {
    const { pool, sent } = fakePool()
    const driver = pgDriver(pool, { preparedStatements: false })
    await driver.read((c) => c.query('SELECT 1 WHERE $1 = 1', [1]))
    assert.deepEqual(sent, ['SELECT 1 WHERE $1 = 1'])
  })
})
