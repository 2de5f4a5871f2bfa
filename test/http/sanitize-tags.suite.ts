/**
 * The XSS corpus written into tags, as the sanitize suite writes it into categories. Only
 * editors and administrators may create or edit tags, and both keep their HTML as given
 * (unfiltered_html), so no role is filtered by default while it writes tags: this pass filters
 * editors through the `sanitize` option, which runs the same allow-list a filtered role gets.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Storage } from '../../src/storage/types.js'
import { XSS_CORPUS } from '../support/xss-corpus.js'
import { makeApp, type App, type Res } from './harness.js'
import { allPages, cap, expectInert, inBatches, jsonProblems, START } from './sanitize.suite.js'

const editor = { as: 'editor' as const }

export function sanitizeTagsSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  async function app(): Promise<App> {
    const a = await makeApp(makeStorage, { sanitize: { editor: 'filtered' } })
    onTestFinished(() => a.close())
    return a
  }

  function created(res: Res, what: string) {
    expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(201)
    expect(jsonProblems(res.body, what)).toEqual([])
    return res.body
  }

  describe(`HTML sanitizing of tags [${name}]`, () => {
    it(`filters ${XSS_CORPUS.length} XSS vectors written into tag names and descriptions, directly and through events`, async () => {
      const a = await app()
      // Filtering is on for editors here: the default keeps their HTML (the sanitize suite's test).
      const kept = await makeApp(async () => a.storage)
      const raw = '<b onclick="x()">kept</b>'
      expect((await kept.post('/tags', { name: raw }, editor)).body.name).toBe(raw)

      const tags = await inBatches(XSS_CORPUS, async (v, i) =>
        created(await a.post('/tags', { name: `${i} ${cap(v.html, 190)}`, description: v.html }, editor), `tag ${v.name}`),
      )
      // Naming a tag on an event write creates it: the same filter applies there.
      const events = await inBatches(XSS_CORPUS, async (v, i) =>
        created(
          await a.post('/events', { ...START, title: `Tagged ${i}`, status: 'publish', tags: [`e${i} ${cap(v.html, 190)}`] }, editor),
          `event tagged ${v.name}`,
        ),
      )
      for (const e of events) expect(e.tags, `event ${e.id} tags`).toHaveLength(1)

      await inBatches(tags, async (t) => expectInert(await a.get(`/tags/${t.id}`), `tag ${t.id}`))
      await inBatches(events, async (e) => {
        const tagId = e.tags[0].id
        expectInert(await a.get(`/tags/${tagId}`), `tag ${tagId} of event ${e.id}`)
        expectInert(await a.get(`/events/${e.id}`, { as: 'administrator' }), `event ${e.id}`)
        expectInert(await a.get(`/events?tags=${tagId}`), `events of tag ${tagId}`)
      })
      const pages = await allPages(a, '/tags?hide_empty=0', 'tags')
      const listed = pages.flatMap((p) => p.body.tags)
      // Every tag of the pass, plus the editor's unfiltered one.
      expect(listed).toHaveLength(XSS_CORPUS.length * 2 + 1)
      for (const page of pages) {
        // The one tag written with filtering off is the control, not a finding.
        const judged = { ...page.body, tags: page.body.tags.filter((t: { name: string }) => t.name !== raw) }
        expect(jsonProblems(judged, 'tags list')).toEqual([])
      }
      const ids = events.map((e) => e.id)
      expectInert(await a.get(`/events?include=${ids.join(',')}&per_page=${ids.length}`, { as: 'administrator' }), 'event list')
    })
  }, 120_000)
}
