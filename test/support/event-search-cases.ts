/**
 * Events and searches shared by the tests of the SQL event search indexes (SQLite's event_fts in
 * sql-event-search.test.ts, PostgreSQL's event_words in sql-event-words.test.ts): every kind of
 * window their key ranges meet, compared with the memory backend.
 */
import assert from 'node:assert/strict'
import type { EventListQuery, PostStatus, Storage, StorageTx } from '../../src/storage/types.js'
import { newEvent } from '../../src/testing/index.js'
import { prng } from '../../bench/prng.js'

const WORDS = ['zephyr', 'vintage', 'jazz', 'brunch', 'quartet', 'market', 'night']
const STATUSES: PostStatus[] = ['publish', 'publish', 'publish', 'draft', 'pending', 'private']
const pad = (x: number) => String(x).padStart(2, '0')
/** 2027-01-01 plus `day` days, at `minutes` past midnight. */
export const at = (day: number, minutes: number) => {
  const d = new Date(Date.UTC(2027, 0, 1 + day, 0, minutes))
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:00`
}

/** The same events in each storage: 40 days, short and multi-day, some at midnight or ending at 23:59. */
export async function fill(tx: StorageTx, seed: number, count: number): Promise<number[]> {
  const rnd = prng(seed)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!
  const ids: number[] = []
  for (let i = 0; i < count; i++) {
    const day = Math.floor(rnd() * 40)
    const start = pick([0, 0, 600, 1439, Math.floor(rnd() * 1440)])
    const length = pick([0, 60, 120, 1439 - start, 1440 * 2, 1440 * 9, Math.floor(rnd() * 1440 * 4)])
    const title = `${pick(WORDS)} ${pick(WORDS)}`
    const e = await tx.insertPost(
      newEvent({
        slug: `e${seed}-${i}`,
        title,
        description: rnd() < 0.3 ? `<p>${pick(WORDS)} &amp; more</p>` : '',
        language: rnd() < 0.85 ? 'en' : 'ja',
        status: pick(STATUSES),
        author: rnd() < 0.5 ? 3 : 1,
        hideFromListings: rnd() < 0.1,
        startDate: at(day, start),
        endDate: at(day, start + Math.max(0, length)),
      }),
    )
    ids.push(e.id)
  }
  // A quiet stretch after those: the only events near the bounds of the last windows below.
  for (const [slug, startDate, endDate] of [
    ['edge-a', '2027-03-10 10:00:00', '2027-03-10 18:00:00'],
    ['edge-b', '2027-03-12 09:00:00', '2027-03-12 10:00:00'],
  ])
    await tx.insertPost(newEvent({ slug: `${slug}-${seed}`, title: 'zephyr at the edge', startDate, endDate }))
  return ids
}

/** Windows of every shape the fast count meets, and searches it does or does not take. */
export function queries(): EventListQuery[] {
  const windows: Array<Pick<EventListQuery, 'startGte' | 'endLte'>> = [
    { startGte: '2027-01-05 00:00:00', endLte: '2027-01-20 23:59:59' },
    { startGte: '2027-01-01 00:00:00', endLte: '2027-02-28 23:59:59' },
    { startGte: '2027-01-10 10:00:00', endLte: '2027-01-25 23:59:59' },
    { startGte: '2027-01-10 00:00:00', endLte: '2027-01-25 12:00:00' },
    { startGte: '2027-01-10 23:59:00', endLte: '2027-01-11 00:30:00' },
    { startGte: '2027-01-12 00:00:00', endLte: '2027-01-12 23:59:59' },
    { startGte: '2027-01-15 00:00:00', endLte: '2027-01-14 23:59:59' },
    { startGte: '2026-12-01 00:00:00', endLte: '2027-01-03 08:00:00' },
    { startGte: '2027-03-01 00:00:00', endLte: '2027-03-10 12:00:00' },
    { startGte: '2027-03-01 00:00:00', endLte: '2027-03-10 18:00:00' },
    { startGte: '2027-03-10 11:00:00', endLte: '2027-03-20 23:59:59' },
    { startGte: '2027-03-10 10:00:00', endLte: '2027-03-12 09:30:00' },
  ]
  const searches = ['zephyr', 'jazz', 'vintage jazz', 'ARKET', 'amp;', 'ze', 'jazz ni', '"jazz', 'p>']
  const statuses: PostStatus[][] = [['publish'], ['publish', 'draft', 'pending', 'private'], ['draft']]
  const out: EventListQuery[] = []
  let i = 0
  for (const w of windows)
    for (const search of searches) {
      const s = statuses[i++ % statuses.length]!
      out.push({ language: 'en', statuses: s, orderBy: 'start', offset: 0, limit: 5, search, ...w })
    }
  out.push({ language: 'ja', statuses: ['publish'], orderBy: 'start', offset: 0, limit: 5, search: 'jazz', ...windows[1] })
  out.push({ language: 'en', statuses: ['publish'], orderBy: 'date', offset: 3, limit: 5, search: 'night', ...windows[1] })
  return out
}

export async function same(sql: Storage, memory: Storage, label: string) {
  for (const q of queries()) {
    const [a, b] = [await sql.listEvents(q), await memory.listEvents(q)]
    const what = `${label} ${JSON.stringify(q)}`
    assert.equal(a.total, b.total, what)
    assert.deepEqual(
      a.items.map((e) => e.slug),
      b.items.map((e) => e.slug),
      what,
    )
  }
}

/** Writes that move an event's class or start day, or take it out of the index. */
export async function shuffle(tx: StorageTx, ids: number[]) {
  await tx.updatePost(ids[0]!, 'event', { status: 'draft' })
  await tx.updatePost(ids[1]!, 'event', { hideFromListings: true })
  await tx.updatePost(ids[2]!, 'event', { startDate: '2027-01-12 09:00:00', endDate: '2027-01-30 09:00:00' })
  await tx.updatePost(ids[3]!, 'event', { title: 'zephyr zephyr' })
  await tx.updatePost(ids[4]!, 'event', { language: 'ja' })
  await tx.deletePost(ids[5]!)
  await tx.updatePost(ids[6]!, 'event', { startDate: '2027-01-12 23:00:00' })
}
