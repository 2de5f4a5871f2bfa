// The runtime smoke checks, shared by bun.mjs, deno.mjs and node.mjs: real HTTP against a server
// built from the published entry points (dist/), one run per storage. Plain JavaScript so that
// every runtime runs it as is. Prints `ok <name>` / `not ok <name> - <reason>` per check and a
// closing `N passed, N failed` line; exits 1 when a check failed.
import assert from 'node:assert/strict'

export const TOKEN = 'smoke-token'
/** Small, so the 413 check needs no big body. */
export const MAX_BODY_BYTES = 2048
export const CHECK_NAMES = ['create', 'anonymous write is 401', 'read', 'list', '404', 'language segment', '413', 'author HTML is filtered', 'recurring series across DST']
/** An author (no unfiltered_html): their HTML goes through the filter, on every runtime. */
export const AUTHOR_TOKEN = 'smoke-author'

/** Router options every runtime uses. */
export const options = {
  maxBodyBytes: MAX_BODY_BYTES,
  authenticate: (request) => {
    const auth = request.headers.get('authorization')
    if (auth === `Bearer ${TOKEN}`) return { id: 1, role: 'administrator' }
    return auth === `Bearer ${AUTHOR_TOKEN}` ? { id: 2, role: 'author' } : null
  },
}

const event = (title) => ({ title, start_date: 'tomorrow 10am', end_date: 'tomorrow 11am', status: 'publish' })

async function call(url, init = {}) {
  const res = await fetch(url, init)
  const text = await res.text()
  let body = null
  try { body = JSON.parse(text) } catch { /* not JSON: the assertions say so */ }
  return { status: res.status, headers: res.headers, type: res.headers.get('content-type') ?? '', body }
}
const create = (api, data, headers = { authorization: `Bearer ${TOKEN}` }) =>
  call(`${api}/events`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(data) })

/** Runs every check against `origin` (the server's http://127.0.0.1:port); returns [name, error?][]. */
export async function runChecks(origin, label) {
  const api = `${origin}/wp-json/calendar/events/v1`
  const state = {}
  const checks = {
    async create() {
      const res = await create(api, event(`Smoke ${label}`))
      assert.equal(res.status, 201)
      assert.match(res.type, /^application\/json/)
      assert.equal(res.body.title, `Smoke ${label}`)
      state.id = res.body.id
    },
    async 'anonymous write is 401'() {
      const res = await create(api, event('nope'), {})
      assert.equal(res.status, 401)
      assert.equal(res.body.code, 'rest_forbidden')
    },
    async read() {
      const res = await call(`${api}/events/${state.id}`)
      assert.equal(res.status, 200)
      assert.equal(res.body.id, state.id)
      assert.equal(res.body.rest_url, `${api}/events/${state.id}`)
    },
    async list() {
      const res = await call(`${api}/events?per_page=10`)
      assert.equal(res.status, 200)
      assert.ok(res.body.events.some((e) => e.id === state.id))
      assert.equal(res.headers.get('x-tec-total'), String(res.body.total))
    },
    async '404'() {
      const missing = await call(`${api}/events/987654`)
      assert.equal(missing.status, 404)
      assert.match(missing.type, /^application\/json/)
      const noRoute = await call(`${api}/nothing`)
      assert.equal(noRoute.status, 404)
      assert.equal(noRoute.body.code, 'rest_no_route')
    },
    async 'language segment'() {
      const ja = `${origin}/ja/wp-json/calendar/events/v1`
      const created = await create(ja, event('スモーク'))
      assert.equal(created.status, 201)
      const list = await call(`${ja}/events?per_page=10`)
      assert.equal(list.status, 200)
      assert.deepEqual(list.body.events.map((e) => e.title), ['スモーク'])
      assert.ok(list.body.rest_url.startsWith(`${ja}/events/`))
      const en = await call(`${api}/events?per_page=10`)
      assert.ok(!en.body.events.some((e) => e.id === created.body.id))
    },
    async '413'() {
      const res = await create(api, { ...event('big'), description: 'x'.repeat(MAX_BODY_BYTES) })
      assert.equal(res.status, 413)
      assert.equal(res.body.data.status, 413)
      // Streamed without Content-Length: the limit is enforced while reading.
      const chunk = new TextEncoder().encode(JSON.stringify({ description: 'y'.repeat(MAX_BODY_BYTES / 2) }))
      const body = new ReadableStream({ start(c) { c.enqueue(chunk); c.enqueue(chunk); c.enqueue(chunk); c.close() } })
      const streamed = await call(`${api}/events`, {
        method: 'POST', body, duplex: 'half',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      })
      assert.equal(streamed.status, 413)
    },
    async 'author HTML is filtered'() {
      const res = await create(
        api,
        { ...event('<em>ok</em><script>alert(1)</script>'), description: '<p onclick="x()">p</p><a href="javascript:alert(1)">a</a>' },
        { authorization: `Bearer ${AUTHOR_TOKEN}` },
      )
      assert.equal(res.status, 201)
      assert.equal(res.body.title, '<em>ok</em>')
      assert.equal(res.body.description, '<p>p</p><a>a</a>')
    },
    // The runtime's own zone data decides every occurrence's UTC instant.
    async 'recurring series across DST'() {
      const res = await create(api, {
        title: `Series ${label}`, start_date: '2027-03-21 19:00', end_date: '2027-03-21 20:00', timezone: 'Europe/Berlin', status: 'publish',
        recurrence: 'FREQ=WEEKLY;BYDAY=SU;COUNT=3',
      })
      assert.equal(res.status, 201)
      assert.equal(res.body.recurrence.description, 'Every Sunday, 3 times')
      const list = await call(`${api}/events?start_date=2027-03-01&end_date=2027-04-30&post_parent=${res.body.id}`)
      const all = [res.body, ...list.body.events]
      assert.deepEqual(all.map((e) => [e.start_date, e.utc_start_date]), [
        ['2027-03-21 19:00:00', '2027-03-21 18:00:00'],
        ['2027-03-28 19:00:00', '2027-03-28 17:00:00'],
        ['2027-04-04 19:00:00', '2027-04-04 17:00:00'],
      ])
    },
  }
  const results = []
  for (const name of CHECK_NAMES) {
    try {
      await checks[name]()
      results.push([`${label}: ${name}`])
    } catch (error) {
      results.push([`${label}: ${name}`, error])
    }
  }
  return results
}

/** Prints the results and sets the exit code. */
export function report(results) {
  let failed = 0
  for (const [name, error] of results) {
    if (!error) console.log(`ok ${name}`)
    else {
      failed++
      console.log(`not ok ${name} - ${String(error?.message ?? error).replace(/\s+/g, ' ')}`)
    }
  }
  console.log(`${results.length - failed} passed, ${failed} failed`)
  return failed === 0 ? 0 : 1
}
