/**
 * Size-amplifying input on every route and method, on memory, SQLite and PostgreSQL: sparse
 * indexes (`a[]=1&a[4294967294]=2`), deep nesting, repeated keys and long strings, in the query
 * string, in form bodies and in JSON bodies. The bound is measured in work, not in time: every
 * parameter object the router parses is weighed (array lengths, object keys, string lengths),
 * and no request may hold more than its input could describe. A sparse index once made a list
 * of that length and kept the whole server busy for minutes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { makeApp, ORIGIN, NS_PATH, type Caller } from './http/harness.js'
import { admin, pgDescribe, schemaStorage } from './support/pg-schema.js'

/** Every value the router parsed out of a request, with the size of the text it came from. */
const parsed: Array<{ input: number; weight: number }> = []

/**
 * The work a parsed value costs whoever walks it: each array slot (holes included: walking a
 * sparse array visits them), each object key and each string's length.
 */
function weigh(root: unknown): number {
  let total = 0
  const stack = [root]
  while (stack.length) {
    const node = stack.pop()
    if (typeof node === 'string') total += node.length
    else if (Array.isArray(node)) {
      total += node.length
      for (const child of node) stack.push(child)
    } else if (typeof node === 'object' && node !== null) {
      const values = Object.values(node)
      total += values.length
      stack.push(...values)
    } else total += 1
  }
  return total
}

vi.mock('../src/http/params.js', async (original) => {
  const real = await original<typeof import('../src/http/params.js')>()
  return {
    ...real,
    parseFormEncoded(input: string) {
      const out = real.parseFormEncoded(input)
      parsed.push({ input: input.length, weight: weigh(out) })
      return out
    },
  }
})

const SPARSE = [
  'zz[]=1&zz[4294967294]=2',
  'zz[]=1&zz[100000000]=2',
  'categories[]=1&categories[99999999]=2',
  'venue[0]=1&venue[2147483647][x]=2',
  'a[b][]=1&a[b][99999999]=2&a[b][]=3',
]
const DEEP = ['a' + Array.from({ length: 60 }, (_, i) => `[${i}]`).join('') + '=v', 'o' + '[]'.repeat(200) + '=v']
const REPEATED = [
  Array.from({ length: 3000 }, () => 'tags[]=x').join('&'),
  Array.from({ length: 3000 }, (_, i) => `k${i % 7}[${i}]=y`).join('&'),
]
const LONG = ['search=' + 'x'.repeat(300_000), 'title=' + '%E2%82%AC'.repeat(40_000)]
const INPUTS = [...SPARSE, ...DEEP, ...REPEATED, ...LONG]

/** Concrete paths for each route of the namespace index, filled with records that exist. */
async function routePaths(app: Awaited<ReturnType<typeof makeApp>>): Promise<string[]> {
  const event = await app.seed({ title: 'Amplified', venue: { venue: 'Hall' }, categories: ['Music'] })
  const index = (await app.get('/')).body as { routes: Record<string, unknown> }
  const ids: Record<string, number> = {
    events: event.id,
    venues: event.venue.id,
    organizers: (await app.post('/organizers', { organizer: 'Org' }, { as: 'administrator' })).body.id,
    categories: event.categories[0].id,
    tags: (await app.post('/tags', { name: 'Tag' }, { as: 'administrator' })).body.id,
  }
  return Object.keys(index.routes).map((route) => {
    const rest = route.replace(/^\/calendar\/events\/v1/, '')
    const kind = rest.split('/')[1] ?? ''
    return rest.replace('(?P<id>\\d+)', String(ids[kind])).replace('(?P<slug>[^/]+)', 'amplified') || '/'
  })
}

function amplificationSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`size-amplifying input on every route [${name}]`, () => {
    it('bounds the parsed parameters by the input and never answers 5xx', async () => {
      const app = await makeApp(makeStorage)
      onTestFinished(() => app.close())
      const paths = await routePaths(app)
      expect(paths.length).toBeGreaterThanOrEqual(15)
      let requests = 0
      for (const path of paths) {
        for (const input of INPUTS) {
          for (const as of [undefined, 'administrator'] as Array<Caller | undefined>) {
            const headers: Record<string, string> = as ? { authorization: `Bearer ${as}` } : {}
            const url = `${ORIGIN}${NS_PATH}${path}`
            const sends: Array<[string, RequestInit]> = [
              [`${url}?${input}`, { method: 'GET', headers }],
              [`${url}?${input}`, { method: 'OPTIONS', headers }],
              [url, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: input }],
              [`${url}?${input}`, { method: 'PATCH', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' }],
            ]
            for (const [target, init] of sends) {
              parsed.length = 0
              const res = await app.router.fetch(new Request(target, init))
              await res.arrayBuffer()
              requests++
              expect(res.status, `${init.method} ${path} ${input.slice(0, 60)}`).toBeLessThan(500)
              for (const p of parsed) expect(p.weight, `${init.method} ${path} ${input.slice(0, 60)}`).toBeLessThanOrEqual(p.input)
            }
          }
        }
      }
      expect(requests).toBe(paths.length * INPUTS.length * 2 * 4)
    })
  })
}

amplificationSuite('memory', () => createMemoryStorage())

const dir = mkdtempSync(join(tmpdir(), 'calendar-amplify-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
amplificationSuite('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `a-${++n}.sqlite`)) }))

afterAll(() => admin?.end())
pgDescribe('PostgreSQL', () => amplificationSuite('postgres', () => schemaStorage()))
