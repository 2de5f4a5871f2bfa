/**
 * The storage contract's import links (optional: `Storage.importLinks`, with `putImportLink` and
 * `importLinksOf` in a transaction): one link per (source, kind, source id), replaced on a second
 * put; a source's fetch state; a link written with its record commits or rolls back with it. A
 * backend without the capability passes these cases without running them (the importer then
 * refuses to run).
 */
import assert from 'node:assert/strict'
import type { ImportLink } from '../storage/import-links.js'
import type { Storage } from '../storage/types.js'
import { newEvent } from './fixtures.js'

type It = (name: string, fn: () => Promise<void>) => void
type WithStorage = (fn: (s: Storage) => Promise<void>) => () => Promise<void>

const link = (sourceId: string, recordId: number, o: Partial<ImportLink> = {}): ImportLink => ({
  source: 'ics:https://a.example/cal.ics',
  kind: 'event',
  sourceId,
  recordId,
  fingerprint: `fp-${sourceId}`,
  importedFields: { title: `Title ${sourceId}`, categories: [1, 2] },
  importedAt: '2026-11-26 10:00:00',
  ...o,
})

const bySourceId = (links: ImportLink[]) => links.map((l) => l.sourceId).sort()

export function importLinksContract(it: It, withStorage: WithStorage): void {
  it(
    'keeps import links: a put replaces the link of its (source, kind, source id), listed by source and by record, removed alone',
    withStorage(async (s) => {
      const store = s.importLinks
      if (!store) return
      await store.putLinks([link('uid-1', 101), link('uid-2', 102), link('uid-1', 103, { kind: 'venue' })])
      await store.putLink(link('uid-9', 109, { source: 'csv:b.csv' }))
      assert.deepEqual(bySourceId(await store.links('ics:https://a.example/cal.ics')), ['uid-1', 'uid-1', 'uid-2'])
      await store.putLink(link('uid-1', 101, { fingerprint: 'changed', importedFields: { title: 'New' } }))
      const [again] = (await store.links('ics:https://a.example/cal.ics')).filter((l) => l.sourceId === 'uid-1' && l.kind === 'event')
      assert.deepEqual(again, link('uid-1', 101, { fingerprint: 'changed', importedFields: { title: 'New' } }))
      assert.deepEqual((await store.linksOf([102, 109, 999])).map((l) => l.recordId).sort(), [102, 109])
      assert.deepEqual(await store.linksOf([]), [])
      await store.removeLink('ics:https://a.example/cal.ics', 'event', 'uid-1')
      assert.deepEqual(bySourceId(await store.links('ics:https://a.example/cal.ics')), ['uid-1', 'uid-2'])
      assert.equal((await store.linksOf([103]))[0]?.kind, 'venue')
      assert.deepEqual(await store.links('ics:https://nobody.example/'), [])
    }),
  )

  it(
    "keeps a source's fetch state, replaced by the next",
    withStorage(async (s) => {
      const store = s.importLinks
      if (!store) return
      assert.equal(await store.sourceState('tec:https://site.example'), null)
      const first = {
        source: 'tec:https://site.example',
        etag: '"v1"',
        lastModified: null,
        checkedAt: '2026-11-26 10:00:00',
        resume: '{"page":3}',
      }
      await store.putSourceState(first)
      assert.deepEqual(await store.sourceState('tec:https://site.example'), first)
      const second = { ...first, etag: null, lastModified: 'Thu, 26 Nov 2026 10:00:00 GMT', checkedAt: '2026-11-26 11:00:00', resume: null }
      await store.putSourceState(second)
      assert.deepEqual(await store.sourceState('tec:https://site.example'), second)
    }),
  )

  it(
    'writes a link with its record in one transaction: seen inside it, kept on commit, gone with a rollback',
    withStorage(async (s) => {
      const store = s.importLinks
      const probe = await s.transaction((tx) => Promise.resolve(Boolean(tx.putImportLink && tx.importLinksOf)))
      if (!store || !probe) return
      const kept = await s.transaction(async (tx) => {
        const e = await tx.insertPost(newEvent({ slug: 'imported' }))
        await tx.putImportLink!(link('uid-kept', e.id))
        assert.deepEqual(
          (await tx.importLinksOf!([e.id, 999])).map((l) => l.sourceId),
          ['uid-kept'],
        )
        return e.id
      })
      assert.deepEqual(bySourceId(await store.linksOf([kept])), ['uid-kept'])
      let rolledBack = 0
      await assert.rejects(
        s.transaction(async (tx) => {
          const e = await tx.insertPost(newEvent({ slug: 'rolled-back' }))
          rolledBack = e.id
          await tx.putImportLink!(link('uid-gone', e.id))
          throw new Error('abort')
        }),
        /abort/,
      )
      assert.deepEqual(await store.linksOf([rolledBack]), [])
      assert.equal(await s.getPost(rolledBack), null)
    }),
  )
}
