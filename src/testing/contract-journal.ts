/**
 * The storage contract's change journal: one entry per record a committed transaction changed,
 * cascades included, none for a rolled-back one, read back in order from any position given out.
 */
import assert from 'node:assert/strict'
import { JournalPositionError, type JournalEntry } from '../storage/journal.js'
import type { Storage, StorageTx } from '../storage/types.js'
import { newEvent, newOrganizer, newTerm, newVenue } from './fixtures.js'

type It = (name: string, fn: () => Promise<void>) => void
type WithStorage = (fn: (s: Storage) => Promise<void>) => () => Promise<void>

/** What an entry says, without its position and time (which the backend chooses). */
const said = (e: JournalEntry) => `${e.kind}:${e.id}:${e.action}:${e.revision}:${e.language}`

/** Runs a transaction and returns what it reported on commit (fails if it reported twice or never). */
async function committed<T>(s: Storage, fn: (tx: StorageTx) => Promise<T>): Promise<{ result: T; entries: JournalEntry[] }> {
  const reports: JournalEntry[][] = []
  const result = await s.transaction(fn, { onCommit: (entries) => void reports.push(entries) })
  assert.equal(reports.length, 1, 'onCommit runs exactly once per committed transaction')
  return { result, entries: reports[0] as JournalEntry[] }
}

/** Every entry from `from` on, read in small pages so paging is exercised too. */
export async function readAll(s: Storage, from: string, pageSize = 2): Promise<{ entries: JournalEntry[]; next: string }> {
  const entries: JournalEntry[] = []
  let at = from
  for (;;) {
    const page = await s.readJournal(at, pageSize)
    entries.push(...page.entries)
    at = page.next
    if (!page.more) return { entries, next: at }
  }
}

async function rejects(p: Promise<unknown>, reason: 'expired' | 'malformed') {
  await assert.rejects(p, (e: unknown) => e instanceof JournalPositionError && e.reason === reason)
}

export function journalContract(it: It, withStorage: WithStorage): void {
  it(
    'writes one entry per record a transaction changed, reported on commit and read back in order',
    withStorage(async (s) => {
      const start = await s.journalHead()
      const a = await committed(s, async (tx) => {
        const cat = await tx.insertTerm(newTerm({ slug: 'music', name: 'Music' }))
        const venue = await tx.insertPost(newVenue({ slug: 'hall' }))
        const event = await tx.insertPost(newEvent({ slug: 'gig', venueIds: [venue.id], categoryIds: [cat.id], status: 'publish' }))
        // Changed again in the same transaction: still one entry, a create at its last revision.
        await tx.updatePost(event.id, 'event', { title: 'Gig!' })
        return { cat, venue, event }
      })
      const { cat, venue, event } = a.result
      assert.deepEqual(
        a.entries.map(said).sort(),
        [`category:${cat.id}:create:0:en`, `event:${event.id}:create:1:en`, `venue:${venue.id}:create:0:en`].sort(),
      )
      const b = await committed(s, (tx) => tx.updatePost(event.id, 'event', { status: 'trash' }))
      // The published event no longer counts in its category: the category changed too.
      assert.deepEqual(b.entries.map(said).sort(), [`category:${cat.id}:count:0:en`, `event:${event.id}:trash:2:en`].sort())
      const c = await committed(s, (tx) => tx.updatePost(event.id, 'event', { status: 'draft' }))
      assert.deepEqual(c.entries.map(said), [`event:${event.id}:update:3:en`])
      const d = await committed(s, (tx) => tx.deletePost(event.id))
      assert.deepEqual(d.entries.map(said), [`event:${event.id}:delete:3:en`])
      const e = await committed(s, (tx) => tx.updateTerm(cat.id, { name: 'Musique', language: 'fr' }))
      assert.equal(e.entries.length, 1)
      assert.equal(e.entries[0]?.kind, 'category')
      assert.equal(e.entries[0]?.action, 'update')
      assert.equal(e.entries[0]?.language, 'fr')
      const f = await committed(s, (tx) => tx.deleteTerm(cat.id))
      assert.deepEqual(
        f.entries.map((x) => `${x.kind}:${x.id}:${x.action}`),
        [`category:${cat.id}:delete`],
      )

      const all = await readAll(s, start)
      const reported = [a, b, c, d, e, f].flatMap((x) => x.entries)
      // The journal may hold more than one entry of a record per transaction; the reports hold
      // one. Both agree on where each record ended.
      const last = (list: JournalEntry[]) => [...new Map(list.map((x) => [`${x.kind}:${x.id}`, x])).values()].map(said).sort()
      assert.deepEqual(last(all.entries), last(reported))
      for (const x of all.entries) assert.match(x.time, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      const positions = all.entries.map((x) => x.position)
      assert.equal(new Set(positions).size, positions.length)
      // Read again from the end: nothing more.
      const after = await s.readJournal(all.next, 10)
      assert.deepEqual(after.entries, [])
      assert.equal(after.more, false)
    }),
  )

  it(
    'reports nothing for a rolled-back transaction and journals nothing of it',
    withStorage(async (s) => {
      const start = await s.journalHead()
      let reported = 0
      await assert.rejects(
        s.transaction(
          async (tx) => {
            await tx.insertPost(newEvent({ slug: 'lost' }))
            await tx.insertTerm(newTerm({ slug: 'lost' }))
            throw new Error('roll back')
          },
          { onCommit: () => void reported++ },
        ),
        /roll back/,
      )
      assert.equal(reported, 0)
      assert.deepEqual((await readAll(s, start)).entries, [])
      // A transaction that changed nothing reports an empty list.
      const none = await committed(s, (tx) => tx.getPost(1))
      assert.deepEqual(none.entries, [])
    }),
  )

  it(
    'journals the changes a backend cascades: links dropped, parents and children moved, linked records shown',
    withStorage(async (s) => {
      const { venue, org, parent, child, cat, sub, tag, e1, e2 } = await s.transaction(async (tx) => {
        const venue = await tx.insertPost(newVenue({ slug: 'v' }))
        const org = await tx.insertPost(newOrganizer({ slug: 'o' }))
        const cat = await tx.insertTerm(newTerm({ slug: 'c' }))
        const sub = await tx.insertTerm(newTerm({ slug: 'sub', parent: cat.id }))
        const tag = await tx.insertTerm(newTerm({ slug: 't', taxonomy: 'tag' }))
        const parent = await tx.insertPost(newEvent({ slug: 'p' }))
        const child = await tx.insertPost(newEvent({ slug: 'ch', parentId: parent.id }))
        const e1 = await tx.insertPost(newEvent({ slug: 'e1', venueIds: [venue.id], categoryIds: [cat.id] }))
        const e2 = await tx.insertPost(newEvent({ slug: 'e2', organizerIds: [org.id], tagIds: [tag.id] }))
        return { venue, org, parent, child, cat, sub, tag, e1, e2 }
      })
      const touched = (entries: JournalEntry[]) => entries.map((x) => `${x.kind}:${x.id}:${x.action}`).sort()
      // A venue renamed: the events that show it change with it.
      const renamed = await committed(s, (tx) => tx.updatePost(venue.id, 'venue', { title: 'New hall' }))
      assert.deepEqual(touched(renamed.entries), [`event:${e1.id}:update`, `venue:${venue.id}:update`].sort())
      // Trashed and unlinked: the events it leaves change.
      const unlinked = await committed(s, async (tx) => {
        await tx.updatePost(org.id, 'organizer', { status: 'trash' })
        await tx.unlinkPost(org.id)
      })
      assert.deepEqual(touched(unlinked.entries), [`event:${e2.id}:update`, `organizer:${org.id}:trash`].sort())
      // An event deleted: its children take its parent.
      const orphaned = await committed(s, (tx) => tx.deletePost(parent.id))
      assert.deepEqual(touched(orphaned.entries), [`event:${child.id}:update`, `event:${parent.id}:delete`].sort())
      // A term deleted: its children move up, its events lose it.
      const catGone = await committed(s, (tx) => tx.deleteTerm(cat.id))
      assert.deepEqual(touched(catGone.entries), [`category:${cat.id}:delete`, `category:${sub.id}:update`, `event:${e1.id}:update`].sort())
      const tagGone = await committed(s, (tx) => tx.deleteTerm(tag.id))
      assert.deepEqual(touched(tagGone.entries), [`event:${e2.id}:update`, `tag:${tag.id}:delete`].sort())
      // A venue deleted for good: the events linked to it change.
      await s.transaction((tx) => tx.updatePost(e2.id, 'event', { venueIds: [venue.id] }))
      const venueGone = await committed(s, (tx) => tx.deletePost(venue.id))
      assert.deepEqual(touched(venueGone.entries), [`event:${e1.id}:update`, `event:${e2.id}:update`, `venue:${venue.id}:delete`].sort())
      // Revisions in entries are the records' own.
      const e1now = await s.getPost(e1.id)
      assert.equal(venueGone.entries.find((x) => x.id === e1.id)?.revision, e1now?.revision)
    }),
  )

  it(
    'journals every occurrence of a series whose shown rule changed (their recurrence changed)',
    withStorage(async (s) => {
      const rule = { rrule: 'FREQ=WEEKLY;COUNT=3', rdate: [], exdate: [] }
      const starts = ['2030-01-07 10:00:00', '2030-01-14 10:00:00', '2030-01-21 10:00:00']
      const { head, members } = await s.transaction(async (tx) => {
        const first = await tx.insertPost(newEvent({ slug: 's1', startDate: starts[0] }))
        const head = await tx.updatePost(first.id, 'event', { seriesId: first.id, series: { position: 1, original: starts[0]!, rule } })
        const members = []
        for (const [i, start] of starts.slice(1).entries())
          members.push(
            await tx.insertPost(
              newEvent({
                slug: `s${i + 2}`,
                startDate: start,
                parentId: head.id,
                seriesId: head.id,
                series: { position: i + 2, original: start },
              }),
            ),
          )
        return { head, members }
      })
      const touched = (entries: JournalEntry[]) => entries.map((x) => `${x.kind}:${x.id}:${x.action}`).sort()
      // An exception added on the first occurrence: every occurrence shows it.
      const excluded = await committed(s, (tx) =>
        tx.updatePost(head.id, 'event', { series: { ...head.series!, rule: { ...rule, exdate: [starts[1]!] } } }),
      )
      assert.deepEqual(touched(excluded.entries), [head, ...members].map((e) => `event:${e.id}:update`).sort())
      for (const m of members) {
        const now = await s.getPost(m.id)
        assert.equal(excluded.entries.find((x) => x.id === m.id)?.revision, now?.revision)
      }
      // The first occurrence's own fields, or its series' `through`: the others show no change.
      const renamed = await committed(s, (tx) => tx.updatePost(head.id, 'event', { title: 'Renamed' }))
      assert.deepEqual(touched(renamed.entries), [`event:${head.id}:update`])
      const current = (await s.getPost(head.id)) as typeof head
      const extended = await committed(s, (tx) =>
        tx.updatePost(head.id, 'event', {
          series: { ...current.series!, rule: { ...current.series!.rule!, through: '2031-01-01 00:00:00' } },
        }),
      )
      assert.deepEqual(touched(extended.entries), [`event:${head.id}:update`])
    }),
  )

  it(
    'journals the terms whose live count an event moves (action count)',
    withStorage(async (s) => {
      const { cat, tag, other } = await s.transaction(async (tx) => ({
        cat: await tx.insertTerm(newTerm({ slug: 'c' })),
        tag: await tx.insertTerm(newTerm({ slug: 't', taxonomy: 'tag' })),
        other: await tx.insertTerm(newTerm({ slug: 'o' })),
      }))
      const touched = (entries: JournalEntry[]) => entries.map((x) => `${x.kind}:${x.id}:${x.action}`).sort()
      const draft = await committed(s, (tx) =>
        tx.insertPost(newEvent({ slug: 'e', status: 'draft', categoryIds: [cat.id], tagIds: [tag.id] })),
      )
      const e = draft.result
      // A draft counts nowhere.
      assert.deepEqual(touched(draft.entries), [`event:${e.id}:create`])
      const published = await committed(s, (tx) => tx.updatePost(e.id, 'event', { status: 'publish' }))
      assert.deepEqual(touched(published.entries), [`category:${cat.id}:count`, `event:${e.id}:update`, `tag:${tag.id}:count`].sort())
      const moved = await committed(s, (tx) => tx.updatePost(e.id, 'event', { categoryIds: [other.id] }))
      assert.deepEqual(touched(moved.entries), [`category:${cat.id}:count`, `category:${other.id}:count`, `event:${e.id}:update`].sort())
      // A change that moves no count (the title) journals the event alone.
      const renamed = await committed(s, (tx) => tx.updatePost(e.id, 'event', { title: 'Renamed' }))
      assert.deepEqual(touched(renamed.entries), [`event:${e.id}:update`])
      const trashed = await committed(s, (tx) => tx.updatePost(e.id, 'event', { status: 'trash' }))
      assert.deepEqual(touched(trashed.entries), [`category:${other.id}:count`, `event:${e.id}:trash`, `tag:${tag.id}:count`].sort())
    }),
  )

  it(
    'reads a stretch of the journal again, up to where it ended the first time',
    withStorage(async (s) => {
      const start = await s.journalHead()
      const first = await committed(s, (tx) => tx.insertPost(newEvent({ slug: 'one' })))
      const end = (await readAll(s, start)).next
      await s.transaction((tx) => tx.insertPost(newEvent({ slug: 'two' })))
      const again = await s.readJournal(start, 10, end)
      assert.deepEqual(
        again.entries.map((x) => x.id),
        [first.result.id],
      )
      assert.equal(again.more, false)
      assert.equal(again.next, end)
      // In pages of one, still stopping there; and nothing after `until` when it is `after`.
      const paged = await s.readJournal(start, 1, end)
      assert.equal(paged.entries.length, 1)
      assert.deepEqual((await s.readJournal(end, 10, end)).entries, [])
      assert.equal((await s.readJournal(end, 10)).entries.length, 1)
    }),
  )

  it(
    'journals events written in bulk, one entry each',
    withStorage(async (s) => {
      const start = await s.journalHead()
      const records = Array.from({ length: 25 }, (_, i) => newEvent({ slug: `occ-${i}` }))
      const { result, entries } = await committed(s, (tx) =>
        tx.insertEvents ? tx.insertEvents(records) : Promise.all(records.map((r) => tx.insertPost(r))),
      )
      const ids = result.map((r) => r?.id).sort((x, y) => (x ?? 0) - (y ?? 0))
      assert.deepEqual(
        entries.map((x) => x.id).sort((x, y) => x - y),
        ids,
      )
      assert.ok(entries.every((x) => x.action === 'create' && x.kind === 'event'))
      assert.equal((await readAll(s, start)).entries.length, 25)
    }),
  )

  it(
    'refuses positions it never gave out, and positions compaction removed',
    withStorage(async (s) => {
      // Garbage, and positions of another journal (its name differs).
      for (const bad of ['', 'x', '1', '-1', 'abc.1', '..', '0.0.0.0', '9'.repeat(40), 'ffffffffffff.0', 'ffffffffffff.0.0']) {
        await rejects(s.readJournal(bad, 10), 'malformed')
      }
      const start = await s.journalHead()
      const { result: first } = await committed(s, (tx) => tx.insertPost(newEvent({ slug: 'one' })))
      const mid = (await readAll(s, start)).next
      await s.transaction((tx) => tx.insertPost(newEvent({ slug: 'two' })))
      // Compacting what was written before a time in the future removes everything so far.
      const removed = await s.compactJournal('9999-12-31 00:00:00')
      assert.equal(removed, 2)
      await rejects(s.readJournal(start, 10), 'expired')
      await rejects(s.readJournal(mid, 10), 'expired')
      // A reader that had seen everything goes on; so does one starting at the head now.
      const head = await s.journalHead()
      assert.deepEqual((await s.readJournal(head, 10)).entries, [])
      const { result: third } = await committed(s, (tx) => tx.insertPost(newEvent({ slug: 'three' })))
      assert.deepEqual(
        (await readAll(s, head)).entries.map((x) => x.id),
        [third.id],
      )
      assert.notEqual(first.id, third.id)
      // Compacting with nothing old enough removes nothing.
      assert.equal(await s.compactJournal('2000-01-01 00:00:00'), 0)
      assert.deepEqual(
        (await readAll(s, head)).entries.map((x) => x.id),
        [third.id],
      )
    }),
  )
}
