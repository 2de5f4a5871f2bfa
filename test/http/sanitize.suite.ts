/**
 * HTML sanitizing by capability. Authors and contributors write every XSS vector of the corpus
 * into every free-text field of every resource (events, nested and standalone venues and
 * organizers, categories); every way the data is read back (by id, by slug, lists, embeds,
 * json_ld, iCalendar) is parsed as a browser would and must hold no live markup. Benign
 * formatting survives, administrators' and editors' HTML is kept byte for byte, URL fields
 * refuse anything but http(s) for every role, and the `sanitize` option changes the policy.
 */
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import ICAL from 'ical.js'
import type { Storage } from '../../src/storage/types.js'
import type { CalendarOptions } from '../../src/options.js'
import type { TextField } from '../../src/sanitize/policy.js'
import { makeApp, type App, type Caller, type Res } from './harness.js'
import { BENIGN_INLINE, BENIGN_RICH, XSS_CORPUS } from '../support/xss-corpus.js'
import { liveMarkup, liveProblems, normalizeHtml, schemeOf, textOf } from '../support/html-check.js'

export const sanitizeStats = { vectors: XSS_CORPUS.length, writes: 0, checkedStrings: 0 }

export const START = { start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00' }

/** JSON keys whose strings are titles, names or one-line fields: inline formatting only. */
const INLINE_KEYS = new Set([
  'title',
  'venue',
  'organizer',
  'name',
  'address',
  'city',
  'country',
  'province',
  'state',
  'stateprovince',
  'zip',
  'phone',
  'email',
  'cost',
  'streetAddress',
  'addressLocality',
  'addressRegion',
  'postalCode',
  'addressCountry',
  'telephone',
])

/** JSON keys holding a URL: http(s) only. */
const URL_KEYS = new Set(['url', 'rest_url', 'website', 'sameAs', 'image', 'link', 'next_rest_url', 'previous_rest_url'])

/** Every string in a JSON body checked as a browser would see it; returns what is live. */
export function jsonProblems(body: unknown, path = '$'): string[] {
  const out: string[] = []
  const visit = (value: unknown, key: string, at: string) => {
    if (typeof value === 'string') {
      sanitizeStats.checkedStrings++
      const kind = INLINE_KEYS.has(key) ? 'inline' : 'rich'
      // Without a `<` the tokenizer never starts a tag: such text holds no markup to judge.
      if (value.includes('<')) for (const p of liveMarkup(value, kind)) out.push(`${at}: ${p} in ${JSON.stringify(value)}`)
      if (URL_KEYS.has(key) && value !== '' && !['http:', 'https:'].includes(schemeOf(value) ?? '')) out.push(`${at}: unsafe URL ${value}`)
      return
    }
    if (Array.isArray(value)) value.forEach((v, i) => visit(v, key, `${at}[${i}]`))
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, k, `${at}.${k}`)
  }
  visit(body, '', path)
  return out
}

/** JSON text that could close a <script> holding json_ld, or open one. */
const scriptBreakout = (res: Res) => /<\/?script/i.test(res.text)

export function expectInert(res: Res, what: string) {
  expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(200)
  expect(jsonProblems(res.body, what)).toEqual([])
  expect(scriptBreakout(res), `${what} carries <script`).toBe(false)
}

/** Text a browser shows for every string of a JSON body (to tell typed text from markup). */
function shownText(body: unknown): string {
  const parts: string[] = []
  const visit = (v: unknown) => {
    if (typeof v === 'string') parts.push(textOf(v))
    else if (Array.isArray(v)) v.forEach(visit)
    else if (v && typeof v === 'object') Object.values(v).forEach(visit)
  }
  visit(body)
  return parts.join('\n').toLowerCase()
}

/**
 * Calendar text is plain text, so `<` there is a character, not a tag. What must not happen is
 * markup reaching the feed that the JSON does not itself show as typed text: each element a
 * parser would find in a calendar value has to be visible text in the event's JSON.
 */
function icsProblems(ics: string, jsonById: Map<number, unknown>, host: string): string[] {
  const out: string[] = []
  const root = new ICAL.Component(ICAL.parse(ics))
  const vevents = root.getAllSubcomponents('vevent')
  for (const vevent of vevents) {
    const uid = String(vevent.getFirstPropertyValue('uid'))
    const id = Number(uid.replace(`@${host}`, ''))
    const json = jsonById.get(id)
    if (!json) {
      out.push(`unexpected VEVENT ${uid}`)
      continue
    }
    const shown = shownText(json)
    for (const prop of vevent.getAllProperties()) {
      const name = prop.name.toUpperCase()
      const values = [...prop.getValues().map(String), ...Object.values(prop.toJSON()[1] as Record<string, unknown>).map(String)]
      for (const value of values) {
        for (const p of liveProblems(value, 'rich')) {
          if (!shown.includes(`<${p.tag}`)) out.push(`${uid} ${name}: ${p.message} in ${JSON.stringify(value)}`)
        }
      }
    }
  }
  if (vevents.length !== jsonById.size) out.push(`${vevents.length} VEVENTs for ${jsonById.size} events`)
  return out
}

export const cap = (s: string, n: number) => s.slice(0, n)

function venueData(html: string) {
  return {
    venue: html,
    description: html,
    excerpt: html,
    address: cap(html, 500),
    city: cap(html, 500),
    country: cap(html, 500),
    province: cap(html, 500),
    state: cap(html, 500),
    stateprovince: cap(html, 500),
    zip: cap(html, 50),
    phone: cap(html, 100),
  }
}

function organizerData(html: string) {
  return { organizer: html, description: html, excerpt: html, phone: cap(html, 100), email: cap(html, 320) }
}

/** Runs `fn` over `items`, a few at a time (storage round trips dominate, not CPU). */
export async function inBatches<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>, size = 6): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map((item, j) => fn(item, i + j)))))
  return out
}

export async function allPages(a: App, path: string, key: string): Promise<Res[]> {
  const pages: Res[] = []
  for (let page = 1; ; page++) {
    const res = await a.get(`${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`, { as: 'administrator' })
    expect(res.status, res.text.slice(0, 200)).toBe(200)
    pages.push(res)
    if (page >= Number(res.headers.get('x-tec-totalpages') ?? res.body.total_pages ?? 1) || !res.body[key]?.length) return pages
  }
}

export function sanitizeSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  async function app(options: CalendarOptions = {}): Promise<App> {
    const a = await makeApp(makeStorage, options)
    onTestFinished(() => a.close())
    return a
  }

  async function created(res: Res, what: string) {
    sanitizeStats.writes++
    // Hostile HTML is never an error: the write succeeds with the filtered value.
    expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(201)
    expect(jsonProblems(res.body, what)).toEqual([])
    return res.body
  }

  describe(`HTML sanitizing [${name}]`, () => {
    afterAll(() => {
      console.log(
        `[sanitize ${name}] ${sanitizeStats.vectors} vectors, ${sanitizeStats.writes} filtered writes, ${sanitizeStats.checkedStrings} response strings judged`,
      )
    })
    for (const role of ['author', 'contributor'] as const satisfies readonly Caller[]) {
      it(`filters ${XSS_CORPUS.length} XSS vectors written as ${role} into every field, on every read path`, async () => {
        const a = await app()
        const events = await inBatches(XSS_CORPUS, async (v) => {
          const body = {
            ...START,
            title: v.html,
            description: v.html,
            excerpt: v.html,
            cost: v.html,
            status: 'publish',
            venue: venueData(v.html),
            organizer: [organizerData(v.html)],
            ...(role === 'author' ? { categories: [cap(v.html, 200)] } : {}),
          }
          return created(await a.post('/events', body, { as: role }), `event ${v.name}`)
        })
        const venues = await inBatches(XSS_CORPUS, async (v) =>
          created(await a.post('/venues', { ...venueData(v.html), status: 'publish' }, { as: role }), `venue ${v.name}`),
        )
        const organizers = await inBatches(XSS_CORPUS, async (v) =>
          created(await a.post('/organizers', { ...organizerData(v.html), status: 'publish' }, { as: role }), `organizer ${v.name}`),
        )
        // Authors manage categories; contributors may not (that refusal is the terms suite's).
        const categories =
          role === 'author'
            ? await inBatches(XSS_CORPUS, async (v, i) =>
                created(
                  await a.post('/categories', { name: `${i} ${cap(v.html, 190)}`, description: v.html }, { as: role }),
                  `category ${v.name}`,
                ),
              )
            : []
        // Single reads by id and by slug (json_ld and embedded venue/organizer included).
        const jsonById = new Map<number, unknown>()
        await inBatches(events, async (e) => {
          const byId = await a.get(`/events/${e.id}`, { as: 'administrator' })
          expectInert(byId, `event ${e.id}`)
          // Published records show their venue, organizer and json_ld; contributors' wait for
          // review (pending), and drafts are never embedded, so theirs are read directly.
          if (role === 'author') {
            expect(byId.body.venue?.id, 'venue embedded').toBeTypeOf('number')
            expect(byId.body.organizer?.length, 'organizer embedded').toBe(1)
            expect(byId.body.json_ld, 'json_ld present').toBeTypeOf('object')
          }
          jsonById.set(e.id, byId.body)
          expectInert(await a.get(`/events/by-slug/${encodeURIComponent(e.slug)}`, { as: 'administrator' }), `event by slug ${e.slug}`)
        })
        await inBatches(
          [...venues.map((v) => ['venues', v] as const), ...organizers.map((o) => ['organizers', o] as const)],
          async ([kind, rec]) => {
            const byId = await a.get(`/${kind}/${rec.id}`, { as: 'administrator' })
            expectInert(byId, `${kind} ${rec.id}`)
            if (role === 'author') expect(byId.body.json_ld, `${kind} json_ld present`).toBeTypeOf('object')
            expectInert(
              await a.get(`/${kind}/by-slug/${encodeURIComponent(rec.slug)}`, { as: 'administrator' }),
              `${kind} by slug ${rec.slug}`,
            )
          },
        )
        await inBatches(categories, async (c) => expectInert(await a.get(`/categories/${c.id}`), `category ${c.id}`))

        // Lists, with embeds.
        const ids = events.map((e) => e.id)
        const list = await a.get(`/events?include=${ids.join(',')}&per_page=${ids.length}`, { as: 'administrator' })
        expectInert(list, 'event list')
        expect(list.body.events).toHaveLength(ids.length)
        for (const [path, key] of [
          ['/venues', 'venues'],
          ['/organizers', 'organizers'],
          ['/categories?hide_empty=0', 'categories'],
        ] as const) {
          const pages = await allPages(a, path, key)
          for (const page of pages) expectInert(page, `${key} list`)
        }

        // iCalendar: the list feed, and single events.
        const feed = await a.get(`/events?include=${ids.join(',')}&per_page=${ids.length}&format=ics`, { as: 'administrator' })
        expect(feed.status).toBe(200)
        expect(icsProblems(feed.text, jsonById, '127.0.0.1')).toEqual([])
        for (const e of events.slice(0, 5)) {
          const one = await a.get(`/events/${e.id}?format=ics`, { as: 'administrator' })
          expect(icsProblems(one.text, new Map([[e.id, jsonById.get(e.id)]]), '127.0.0.1')).toEqual([])
        }
      })
    }

    it('filters updates (PUT and PATCH) of events, venues, organizers and categories, and nested data on updates', async () => {
      const a = await app()
      const sample = XSS_CORPUS.filter((_, i) => i % 8 === 0)
      const event = await created(await a.post('/events', { ...START, title: 'Plain' }, { as: 'author' }), 'event')
      const venue = await created(await a.post('/venues', { venue: 'Plain hall' }, { as: 'author' }), 'venue')
      const organizer = await created(await a.post('/organizers', { organizer: 'Plain org' }, { as: 'author' }), 'organizer')
      const category = await created(await a.post('/categories', { name: 'Plain cat' }, { as: 'author' }), 'category')
      for (const [i, v] of sample.entries()) {
        const method = i % 2 ? 'put' : 'patch'
        const writes: Array<[string, Res]> = [
          [
            `event ${v.name}`,
            await a[method](
              `/events/${event.id}`,
              {
                title: v.html,
                description: v.html,
                excerpt: v.html,
                venue: venueData(`${i}${v.html}`),
                organizer: organizerData(`${i}${v.html}`),
              },
              { as: 'author' },
            ),
          ],
          [`venue ${v.name}`, await a[method](`/venues/${venue.id}`, venueData(v.html), { as: 'author' })],
          [`organizer ${v.name}`, await a[method](`/organizers/${organizer.id}`, organizerData(v.html), { as: 'author' })],
          [
            `category ${v.name}`,
            await a[method](`/categories/${category.id}`, { name: `${i} ${cap(v.html, 190)}`, description: v.html }, { as: 'author' }),
          ],
        ]
        for (const [what, res] of writes) {
          expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(200)
          expect(jsonProblems(res.body, what)).toEqual([])
        }
      }
      for (const path of [`/events/${event.id}`, `/venues/${venue.id}`, `/organizers/${organizer.id}`, `/categories/${category.id}`]) {
        expectInert(await a.get(path, { as: 'administrator' }), path)
      }
    })

    it('keeps benign formatting: links, images, lists, tables, headings, quotes, code; inline formatting in titles and names', async () => {
      const a = await app()
      const rich = BENIGN_RICH.map((b) => b.html).join('\n')
      const inline = BENIGN_INLINE[0]!.html
      const res = await a.post(
        '/events',
        {
          ...START,
          title: inline,
          description: rich,
          excerpt: rich,
          venue: { venue: inline, description: rich },
          organizer: { organizer: inline, description: rich },
        },
        { as: 'contributor' },
      )
      const event = await created(res, 'benign event')
      const stored = await a.get(`/events/${event.id}`, { as: 'administrator' })
      const venue = await a.get(`/venues/${event.venue.id}`, { as: 'administrator' })
      const organizer = await a.get(`/organizers/${event.organizer[0].id}`, { as: 'administrator' })
      for (const html of [stored.body.description, stored.body.excerpt, venue.body.description, organizer.body.description]) {
        const normal = normalizeHtml(html)
        for (const b of BENIGN_RICH) for (const keep of b.keep) expect(normal, keep).toContain(keep)
      }
      for (const html of [stored.body.title, venue.body.venue, organizer.body.organizer]) {
        for (const keep of BENIGN_INLINE[0]!.keep) expect(normalizeHtml(html)).toContain(keep)
      }
      for (const b of BENIGN_INLINE) {
        const e = await created(await a.post('/events', { ...START, title: b.html }, { as: 'author' }), b.html)
        for (const keep of b.keep) expect(normalizeHtml(e.title)).toContain(keep)
      }
      // Titles keep inline formatting only: block elements and links are unwrapped to their text.
      const title = await created(
        await a.post('/events', { ...START, title: '<h1>Big</h1> <a href="https://example.com/">link</a> <em>ok</em>' }, { as: 'author' }),
        'block title',
      )
      expect(title.title).toBe('Big link <em>ok</em>')
      // Plain text is stored exactly as typed (no entity rewriting without markup).
      const plain = await created(
        await a.post('/venues', { venue: 'Smith & Sons', address: '5 "Main" St' }, { as: 'author' }),
        'plain venue',
      )
      expect([plain.venue, plain.address]).toEqual(['Smith & Sons', '5 "Main" St'])
      // Filtering is stable: writing back what was read changes nothing.
      const again = await a.patch(
        `/events/${event.id}`,
        { description: stored.body.description, title: stored.body.title },
        { as: 'contributor' },
      )
      expect(again.status).toBe(200)
      expect([again.body.description, again.body.title]).toEqual([stored.body.description, stored.body.title])
    })

    it("stores administrators' and editors' HTML byte for byte", async () => {
      // The judge is not lenient: it finds live markup in the raw corpus (the few it passes are
      // inert in a browser too, like a <body> inside a fragment or a scheme broken by U+FFFD).
      expect(XSS_CORPUS.filter((v) => liveMarkup(v.html, 'rich').length > 0).length).toBeGreaterThanOrEqual(100)
      const a = await app()
      const html = XSS_CORPUS.map((v) => v.html).join('\n')
      const short = '<script>alert(1)</script><b onclick="x()">T</b>'
      for (const role of ['administrator', 'editor'] as const) {
        const res = await a.post(
          '/events',
          {
            ...START,
            title: short,
            description: html,
            excerpt: html,
            venue: { venue: `${role} ${short}`, description: html, address: short },
            organizer: { organizer: `${role} ${short}`, description: html, email: short },
          },
          { as: role },
        )
        expect(res.status).toBe(201)
        const read = await a.get(`/events/${res.body.id}`, { as: role })
        for (const body of [res.body, read.body]) {
          expect([body.title, body.description, body.excerpt]).toEqual([short, html, html])
          expect([body.venue.venue, body.venue.description, body.venue.address]).toEqual([`${role} ${short}`, html, short])
          expect([body.organizer[0].organizer, body.organizer[0].description, body.organizer[0].email]).toEqual([
            `${role} ${short}`,
            html,
            short,
          ])
        }
        const tag = await a.post('/tags', { name: `${role} ${short}`, description: html }, { as: role })
        expect(tag.status).toBe(201)
        expect([tag.body.name, tag.body.description]).toEqual([`${role} ${short}`, html])
      }
    })

    it('URL fields accept only http(s) for every role: javascript: and friends are a 400 naming the field, and nothing is stored', async () => {
      const a = await app()
      const bad = [
        'javascript:alert(1)',
        'JaVaScRiPt:alert(1)',
        ' javascript:alert(1)',
        'java\tscript:alert(1)',
        'vbscript:msgbox(1)',
        'data:text/html,<script>alert(1)</script>',
        'mailto:x@example.com',
      ]
      for (const role of ['administrator', 'editor', 'author', 'contributor'] as const) {
        for (const url of bad) {
          const cases: Array<[string, unknown, string]> = [
            ['/events', { ...START, title: 'X', website: url }, 'website'],
            ['/events', { ...START, title: 'X', image: url }, 'image'],
            ['/events', { ...START, title: 'X', venue: { venue: 'V', website: url } }, 'venue'],
            ['/venues', { venue: 'V', website: url }, 'website'],
            ['/organizers', { organizer: 'O', website: url }, 'website'],
          ]
          for (const [path, body, field] of cases) {
            const res = await a.post(path, body, { as: role })
            expect(res.status, `${role} ${path} ${field}=${url}`).toBe(400)
            expect(res.body.code).toMatch(/^rest_invalid_param$|^could-not-create-venue$/)
            expect(Object.keys(res.body.data.params ?? {})).toContain(field)
          }
        }
      }
      for (const path of ['/events', '/venues', '/organizers']) expect((await a.get(path, { as: 'administrator' })).body.total ?? 0).toBe(0)
    })

    it('the sanitize option sets the policy per role, or as one function', async () => {
      const script = '<em>x</em><script>alert(1)</script>'
      const perRole = await app({ sanitize: { author: 'unfiltered', administrator: 'filtered', contributor: 'plain' } })
      const byAuthor = await perRole.post('/events', { ...START, title: script, description: script }, { as: 'author' })
      expect([byAuthor.body.title, byAuthor.body.description]).toEqual([script, script])
      const byAdmin = await perRole.post('/events', { ...START, title: script, description: script }, { as: 'administrator' })
      expect([byAdmin.body.title, byAdmin.body.description]).toEqual(['<em>x</em>', '<em>x</em>'])
      const byContributor = await perRole.post(
        '/events',
        { ...START, title: script, description: '<p><a href="https://example.com/">x</a> &amp; y</p>' },
        { as: 'contributor' },
      )
      expect([byContributor.body.title, byContributor.body.description]).toEqual(['x', 'x &amp; y'])
      // Editors keep the default (unfiltered_html).
      expect((await perRole.post('/events', { ...START, title: script }, { as: 'editor' })).body.title).toBe(script)

      const seen: Array<TextField & { role: string | undefined }> = []
      const custom = await app({
        sanitize: (value, field, principal) => {
          seen.push({ ...field, role: principal?.role })
          return field.field === 'title' ? value.toUpperCase() : value
        },
      })
      const res = await custom.post(
        '/events',
        { ...START, title: 'shout', description: 'as is', venue: { venue: 'hall', address: 'street' }, categories: ['new one'] },
        { as: 'author' },
      )
      expect(res.status).toBe(201)
      expect([res.body.title, res.body.description, res.body.venue.venue, res.body.venue.address]).toEqual([
        'SHOUT',
        'as is',
        'HALL',
        'street',
      ])
      expect(seen).toEqual(
        expect.arrayContaining([
          { resource: 'event', field: 'title', kind: 'inline', role: 'author' },
          { resource: 'event', field: 'description', kind: 'rich', role: 'author' },
          { resource: 'venue', field: 'address', kind: 'inline', role: 'author' },
          { resource: 'term', field: 'name', kind: 'inline', role: 'author' },
        ]),
      )
      // The function sees administrators' writes too: it is the whole policy.
      expect((await custom.post('/events', { ...START, title: 'admin' }, { as: 'administrator' })).body.title).toBe('ADMIN')

      await expect(makeApp(makeStorage, { sanitize: { admin: 'filtered' } as never })).rejects.toThrow(/unknown role "admin"/)
      await expect(makeApp(makeStorage, { sanitize: { author: 'loose' } as never })).rejects.toThrow(/sanitize.author/)
    })

    it('keeps deeply nested markup as escaped text instead of spending seconds parsing it', async () => {
      const a = await app()
      const deep = '<table><tr><td>'.repeat(40_000) + '<img src=x onerror=alert(1)>'
      const started = performance.now()
      const res = await a.post('/events', { ...START, title: 'Deep', description: deep }, { as: 'author' })
      expect(performance.now() - started).toBeLessThan(8_000)
      const event = await created(res, 'deep event')
      expect(event.description.startsWith('&lt;table>&lt;tr>&lt;td>')).toBe(true)
      expect(textOf(event.description)).toBe(deep)
      // Reused venue: nested data naming a venue the same filtered way finds the stored one.
      const v1 = await created(
        await a.post('/events', { ...START, title: 'A', venue: { venue: 'Hall <script>x</script>', city: 'Town' } }, { as: 'author' }),
        'a',
      )
      const v2 = await created(
        await a.post('/events', { ...START, title: 'B', venue: { venue: 'Hall <script>y</script>', city: 'Town' } }, { as: 'author' }),
        'b',
      )
      expect(v2.venue.id).toBe(v1.venue.id)
      // Terms named on an event are matched by their stored (filtered) name too.
      const c1 = await created(
        await a.post('/events', { ...START, title: 'C', categories: ['Jazz<script>1</script>'] }, { as: 'author' }),
        'c',
      )
      const c2 = await created(
        await a.post('/events', { ...START, title: 'D', categories: ['Jazz<script>2</script>'] }, { as: 'author' }),
        'd',
      )
      expect(c2.categories.map((c: { id: number }) => c.id)).toEqual(c1.categories.map((c: { id: number }) => c.id))
      const dup = await a.post('/categories', { name: 'Jazz<style>x</style>' }, { as: 'author' })
      expect([dup.status, dup.body.code]).toEqual([400, 'term_exists'])
    })
  })
}
