/**
 * The sync property: random writers (creates, edits, status changes, trash, restore, permanent
 * deletes, venue renames and trashing, term renames and moves, series created and edited) run
 * against clients that sync after every few writes, each keeping a mirror; at the end every
 * mirror equals a fresh full listing, record for record and byte for byte. Clients: anonymous and
 * editor event lists, a filtered event list, venues and categories.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Storage } from '../../src/storage/types.js'
import { makeApp, type App, type Caller } from './harness.js'
import { sync } from '../../src/testing/http/sync-pages.js'

const RUNS: Record<string, number> = { memory: 20, sqlite: 8, postgres: 5 }

const OPS = [
  'create',
  'create',
  'title',
  'status',
  'category',
  'venue',
  'trash',
  'restore',
  'delete',
  'renameVenue',
  'trashVenue',
  'newVenue',
  'renameCategory',
  'moveCategory',
  'series',
  'seriesEdit',
] as const

type Command = { op: (typeof OPS)[number]; a: number; b: number; sync: number; client: number }

const command: fc.Arbitrary<Command> = fc.record({
  op: fc.constantFrom(...OPS),
  a: fc.nat(1000),
  b: fc.nat(1000),
  sync: fc.nat(3),
  client: fc.nat(4),
})

interface Client {
  path: string
  as?: Caller
  token: string
  mirror: Map<number, unknown>
}

const CLIENTS: Array<Pick<Client, 'path' | 'as'>> = [
  { path: '/events' },
  { path: '/events', as: 'editor' },
  { path: '/events?categories=c0' },
  { path: '/venues', as: 'editor' },
  { path: '/categories?hide_empty=0' },
]

/**
 * What a mirror is compared on: everything, but an event's embedded term counts, which are as of
 * the event's own last change (a term's count moving is a change of the term, not of every event
 * showing it: docs/sync.md).
 */
function comparable(item: unknown): unknown {
  const e = item as { categories?: Array<Record<string, unknown>>; tags?: Array<Record<string, unknown>> }
  if (!Array.isArray(e.categories)) return item
  const strip = (terms: Array<Record<string, unknown>> = []) => terms.map(({ count: _count, ...t }) => t)
  return { ...e, categories: strip(e.categories), tags: strip(e.tags) }
}

async function catchUp(app: App, c: Client): Promise<void> {
  const r = await sync(app, c.path, c.token, { ...(c.as ? { as: c.as } : {}), perPage: 2 })
  for (const id of r.deleted) c.mirror.delete(id)
  for (const item of r.items) c.mirror.set(item.id, item)
  c.token = r.token
}

/** One run of the property: `commands` applied by writers, clients syncing in between. */
async function scenario(makeStorage: () => Storage | Promise<Storage>, commands: Command[]): Promise<void> {
  const app = await makeApp(makeStorage)
  try {
    const admin = { as: 'administrator' as const }
    const cats: number[] = []
    for (const slug of ['c0', 'c1', 'c2']) cats.push((await app.post('/categories', { name: slug, slug }, admin)).body.id)
    const venues: number[] = [(await app.post('/venues', { venue: 'V0', status: 'publish' }, admin)).body.id]
    const events: number[] = []
    const series: number[] = []
    for (let i = 0; i < 3; i++) events.push((await app.seed({ title: `Start ${i}`, categories: [cats[i % 3]] })).id)
    const clients: Client[] = []
    for (const c of CLIENTS) {
      const r = await sync(app, c.path, '*', { ...(c.as ? { as: c.as } : {}), perPage: 2 })
      clients.push({ ...c, token: r.token, mirror: new Map(r.items.map((x) => [x.id, x])) })
    }
    const pick = (list: number[], n: number) => list[n % list.length]
    for (const cmd of commands) {
      const event = pick(events, cmd.a)
      const venue = pick(venues, cmd.b)
      const cat = pick(cats, cmd.b)!
      switch (cmd.op) {
        case 'create': {
          const body: Record<string, unknown> = {
            title: `New ${cmd.a}`,
            categories: [cat],
            status: cmd.b % 3 ? 'publish' : 'draft',
          }
          if (cmd.a % 2 && venue) body.venue = venue
          events.push((await app.seed(body)).id)
          break
        }
        case 'title':
          if (event) await app.patch(`/events/${event}`, { title: `Title ${cmd.b}` }, admin)
          break
        case 'status':
          if (event) await app.patch(`/events/${event}`, { status: cmd.b % 2 ? 'publish' : 'draft' }, admin)
          break
        case 'category':
          if (event) await app.patch(`/events/${event}`, { categories: [cat] }, admin)
          break
        case 'venue':
          if (event && venue) await app.patch(`/events/${event}`, { venue }, admin)
          break
        case 'trash':
          if (event) await app.del(`/events/${event}`, admin)
          break
        case 'restore':
          if (event) await app.patch(`/events/${event}`, { status: 'publish' }, admin)
          break
        case 'delete':
          if (event) {
            await app.del(`/events/${event}?force=true`, admin)
            events.splice(events.indexOf(event), 1)
          }
          break
        case 'renameVenue':
          if (venue) await app.patch(`/venues/${venue}`, { venue: `V ${cmd.a}` }, admin)
          break
        case 'trashVenue':
          if (venue) {
            await app.del(`/venues/${venue}`, admin)
            venues.splice(venues.indexOf(venue), 1)
          }
          break
        case 'newVenue':
          venues.push((await app.post('/venues', { venue: `V new ${cmd.a}`, status: 'publish' }, admin)).body.id)
          break
        case 'renameCategory':
          await app.patch(`/categories/${cat}`, { name: `c${cmd.b % 3} renamed ${cmd.a}` }, admin)
          break
        case 'moveCategory': {
          const parent = pick(cats, cmd.a)!
          await app.patch(`/categories/${cat}`, { parent: parent === cat ? 0 : parent }, admin)
          break
        }
        case 'series': {
          const s = await app.seed({ title: `Series ${cmd.a}`, categories: [cat], recurrence: 'FREQ=WEEKLY;COUNT=3' })
          series.push(s.id)
          events.push(s.id)
          break
        }
        case 'seriesEdit': {
          const s = pick(series, cmd.a)
          if (s && events.includes(s)) await app.patch(`/events/${s}?recurrence_scope=all`, { title: `Series edit ${cmd.b}` }, admin)
          break
        }
      }
      if (cmd.sync === 0) await catchUp(app, clients[cmd.client % clients.length]!)
    }
    for (const c of clients) {
      await catchUp(app, c)
      const fresh = await sync(app, c.path, '*', { ...(c.as ? { as: c.as } : {}), perPage: 50 })
      const want = new Map(fresh.items.map((x) => [x.id, x]))
      expect(
        [...c.mirror.keys()].sort((x, y) => x - y),
        `${c.as ?? 'anonymous'} ${c.path}`,
      ).toEqual([...want.keys()].sort((x, y) => x - y))
      for (const [id, item] of want) expect(comparable(c.mirror.get(id)), `${c.path} #${id}`).toEqual(comparable(item))
    }
  } finally {
    await app.close()
  }
}

/** Shrunk counterexamples fast-check found once, replayed on every backend. */
const FOUND: Array<{ what: string; ops: Array<Partial<Command> & Pick<Command, 'op'>> }> = [
  {
    what: 'a trashed series member and a renamed category, then a create',
    ops: [{ op: 'series' }, { op: 'create' }, { op: 'trash' }, { op: 'renameCategory' }, { op: 'trash', a: 143 }, { op: 'create' }],
  },
]

export function syncPropertySuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`incremental sync, random writers [${name}]`, () => {
    it('every client’s mirror ends equal to a fresh full listing', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 28 }), (commands) => scenario(makeStorage, commands)),
        { numRuns: Number(process.env.SYNC_RUNS ?? RUNS[name] ?? 5) },
      )
    })
    for (const found of FOUND)
      it(`found once: ${found.what}`, () =>
        scenario(
          makeStorage,
          found.ops.map((o) => ({ a: 0, b: 0, sync: 0, client: 0, ...o })),
        ))
  })
}
