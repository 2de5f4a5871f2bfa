/**
 * Webhook chaos (issue 25): what happens to deliveries when things break, with real processes
 * where a process has to die. Every delivery a receiver gets is verified with the
 * `standardwebhooks` package.
 *
 * - The receiver is down (connection refused) for a while, then back: every change arrives
 *   (memory, SQLite, PostgreSQL: the router in this process, its background runner on).
 * - A server process (test/support/webhook-server.ts) is SIGKILLed right after a write, and in
 *   the middle of a burst of writes, then started again on the same database: every committed
 *   change is delivered (the outbox), and a change received twice has one webhook-id.
 * - A server process is SIGKILLed while a receiver holds its delivery open: the restarted
 *   process sends it again, with the same webhook-id, once the dead runner's lease runs out.
 * - Two server processes on one SQLite file or PostgreSQL database, both with background
 *   runners: each change is delivered once per endpoint.
 * - A receiver's 50 MB answer and a receiver trickling its answer are cut off: the first
 *   `keepBytes` are recorded, and the rest is never read.
 *
 * Memory runs only the receiver-down test: it keeps deliveries for the life of the process, so
 * there is nothing to restart onto and no second process to share with.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Webhook } from 'standardwebhooks'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import type { CalendarOptions } from '../src/options.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { makeApp } from './http/harness.js'
import { admin, pgDescribe, schemaStorage, url as pgUrl } from './support/pg-schema.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-webhooks-chaos-'))
let files = 0
const schemas: string[] = []
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  for (const s of schemas) await admin!.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`)
  await admin?.end()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `check` holds, looking every 25 ms; fails with `what` after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(25)
  }
}

interface Receipt {
  path: string
  headers: http.IncomingHttpHeaders
  body: string
  at: number
}

type Answer = (r: Receipt, res: http.ServerResponse) => void

/**
 * A receiver on 127.0.0.1 that records every request and answers 200, unless `answer` is set
 * for the request's path. It can stop listening (requests are refused) and listen again on the
 * same port.
 */
class Receiver {
  readonly got: Receipt[] = []
  readonly answers = new Map<string, Answer>()
  port = 0
  private server: http.Server | null = null

  async listen(): Promise<this> {
    const server = http.createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString('utf8')))
      req.on('end', () => {
        const r: Receipt = { path: req.url ?? '', headers: req.headers, body, at: Date.now() }
        this.got.push(r)
        const answer = this.answers.get(r.path)
        if (answer) return answer(r, res)
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.end('ok')
      })
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.port, '127.0.0.1', resolve)
    })
    this.port = (server.address() as AddressInfo).port
    this.server = server
    return this
  }

  /** Stops listening: from now on connections are refused. */
  async close(): Promise<void> {
    const server = this.server
    this.server = null
    if (!server) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`
  }

  at(path: string): Receipt[] {
    return this.got.filter((r) => r.path === path)
  }
}

async function receiver(): Promise<Receiver> {
  const r = await new Receiver().listen()
  onTestFinished(() => r.close())
  return r
}

interface Payload {
  type: string
  timestamp: string
  data: { id: number; [key: string]: unknown }
}

/** Every receipt verified with the endpoint's secret by `standardwebhooks` (which throws otherwise), and its payload. */
function verified(receipts: Receipt[], secret: string): Array<Payload & { webhookId: string }> {
  const hook = new Webhook(secret)
  return receipts.map((r) => ({
    ...(hook.verify(r.body, r.headers as Record<string, string>) as Payload),
    webhookId: String(r.headers['webhook-id']),
  }))
}

/**
 * Receipts grouped by webhook-id: a delivery may arrive more than once (a crash between the
 * receiver's answer and its record), but only ever with the same id and the same body.
 */
function byWebhookId(receipts: Receipt[]): Map<string, Receipt[]> {
  const ids = new Map<string, Receipt[]>()
  for (const r of receipts) {
    const id = String(r.headers['webhook-id'])
    ids.set(id, [...(ids.get(id) ?? []), r])
  }
  for (const same of ids.values()) expect(new Set(same.map((r) => r.body)).size).toBe(1)
  return ids
}

const EVENT = { title: 'Chaos', start_date: '2026-12-01 19:00', end_date: '2026-12-01 21:00', status: 'publish' }
const NS = '/wp-json/calendar/events/v1'

// ---------------------------------------------------------------------------------------------
// The receiver is down, then back: the router in this process, on each storage.

function receiverDownSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  it(`[${name}] the receiver refuses connections for a while, then comes back: every change is delivered, once`, async () => {
    const r = await receiver()
    // Down from the start: the port is known, nothing listens on it.
    await r.close()
    const app = await makeApp(makeStorage, {
      webhooks: { allowPrivate: true, pollMs: 100, timeoutMs: 1000, retrySchedule: [0.3, 0.3, 0.6, 1, 1, 1, 1, 1, 1, 1] },
    })
    onTestFinished(() => app.close())
    const e = (await app.post('/webhooks', { url: r.url('/hook') }, { as: 'administrator' })).body as { id: number; secret: string }
    await app.router.webhooks.start()
    onTestFinished(() => app.router.webhooks.stop())

    const event = (await app.post('/events', EVENT, { as: 'administrator' })).body as { id: number }
    const tag = (await app.post('/tags', { name: 'Refused' }, { as: 'administrator' })).body as { id: number }
    await app.patch(`/events/${event.id}`, { title: 'Chaos, renamed' }, { as: 'administrator' })
    await app.del(`/tags/${tag.id}?force=true`, { as: 'administrator' })

    // Every delivery has been refused at least twice: the runner met the receiver down, and retried.
    const log = async () =>
      (await app.get(`/webhooks/${e.id}/deliveries`, { as: 'administrator' })).body as {
        total: number
        deliveries: Array<{ id: string; status: string; attempts: number; last_status: number | null; last_response: string }>
      }
    await until(
      async () => {
        const l = await log()
        return l.total === 4 && l.deliveries.every((d) => d.attempts >= 2)
      },
      10_000,
      'every delivery to be refused twice',
    )
    for (const d of (await log()).deliveries) {
      expect(d).toMatchObject({ status: 'pending', last_status: null })
      expect(d.last_response).toMatch(/ECONNREFUSED/)
    }
    expect(r.got).toEqual([])

    await r.listen()
    await until(async () => (await log()).deliveries.every((d) => d.status === 'succeeded'), 10_000, 'every delivery to succeed')
    const payloads = verified(r.got, e.secret)
    expect(payloads.map((p) => p.type).sort()).toEqual(['event.created', 'event.updated', 'tag.created', 'tag.deleted'])
    expect(byWebhookId(r.got).size).toBe(4)
    expect(r.got.length).toBe(4)
  })
}

describe('webhook chaos: the receiver is down, then back', () => {
  receiverDownSuite('memory', () => createMemoryStorage())
  receiverDownSuite('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `down-${++files}.sqlite`)) }))
})
pgDescribe('webhook chaos: the receiver is down, then back (PostgreSQL)', () => {
  receiverDownSuite('postgres', () => schemaStorage())
})

// ---------------------------------------------------------------------------------------------
// Server processes: test/support/webhook-server.ts, killed and started again.

const SERVER = fileURLToPath(new URL('./support/webhook-server.ts', import.meta.url))

interface ServerProcess {
  child: ChildProcess
  port: number
  stderr: () => string
  /** A request to the namespace as an administrator; the body parsed. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
  kill(): Promise<void>
}

/** The database a server process opens: a SQLite file, or a schema of the test PostgreSQL server. */
type Database = Record<string, string>

async function database(kind: 'sqlite' | 'postgres'): Promise<Database> {
  if (kind === 'sqlite') return { WEBHOOK_SERVER_SQLITE: join(dir, `server-${++files}.sqlite`) }
  const schema = `chaos_${process.pid}_${++files}`
  await admin!.query(`CREATE SCHEMA ${schema}`)
  schemas.push(schema)
  return { WEBHOOK_SERVER_PG_URL: pgUrl, WEBHOOK_SERVER_PG_SCHEMA: schema }
}

/** Starts a server process on `db` with these webhook options; resolves once it listens. */
async function startServer(db: Database, webhooks: CalendarOptions['webhooks']): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    env: { ...process.env, ...db, WEBHOOK_SERVER_OPTIONS: JSON.stringify(webhooks) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  onTestFinished(kill)
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8')
      const m = /\{"port":(\d+)\}/.exec(out)
      if (m) resolve(Number(m[1]))
    })
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${stderr}`)))
  })
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${NS}${path}`, {
      method,
      headers: { authorization: 'Bearer administrator', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null }
  }
  return { child, port, stderr: () => stderr, call, kill }
}

async function addEndpoint(s: ServerProcess, url: string, events = ['*']): Promise<{ id: number; secret: string }> {
  const res = await s.call('POST', '/webhooks', { url, events })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body as { id: number; secret: string }
}

/** Runner settings of the server processes: a quick poll, short retries. */
const RUNNER = { allowPrivate: true, background: true, pollMs: 100, timeoutMs: 2000, retrySchedule: [0.2, 0.5, 1, 1, 1, 1, 1, 1] }

function processSuite(kind: 'sqlite' | 'postgres') {
  it(`[${kind}] SIGKILL right after a write, before any delivery ran: the change is delivered after the restart`, async () => {
    const r = await receiver()
    const db = await database(kind)
    // No runner in the first life: the write is committed and acknowledged, nothing is dispatched.
    const first = await startServer(db, { ...RUNNER, background: false })
    const e = await addEndpoint(first, r.url('/hook'))
    const made = await first.call('POST', '/events', EVENT)
    expect(made.status).toBe(201)
    await first.kill()
    expect(r.got).toEqual([])

    await startServer(db, RUNNER)
    await until(() => r.got.length >= 1, 15_000, 'the delivery after the restart')
    await sleep(500) // anything sent twice would arrive by now
    const [p] = verified(r.got, e.secret)
    expect(r.got.length).toBe(1)
    expect(p).toMatchObject({ type: 'event.created', data: { id: made.body.id, title: 'Chaos' } })
  })

  // Up to ~8 s: a delivery the dead process had claimed holds its endpoint until the lease
  // (leaseMs, shortened here from its default timeoutMs + 30 s) runs out, and the deliveries
  // after it wait behind it.
  it(
    `[${kind}] SIGKILL in the middle of a burst of writes: every committed change is delivered after the restart, repeats only with the same webhook-id`,
    { timeout: 90_000 },
    async () => {
      const r = await receiver()
      const db = await database(kind)
      const options = { ...RUNNER, timeoutMs: 1000, leaseMs: 8000 }
      const first = await startServer(db, options)
      const e = await addEndpoint(first, r.url('/hook'), ['tag.*'])
      // 40 creates, 6 at a time; the process is killed as soon as 15 have been acknowledged,
      // with writes, dispatches and deliveries in flight.
      const acknowledged: number[] = []
      let next = 0
      let killed: Promise<void> | null = null
      const writer = async () => {
        while (next < 40 && !killed) {
          const i = next++
          try {
            const res = await first.call('POST', '/tags', { name: `Burst ${i}` })
            if (res.status === 201) acknowledged.push((res.body as { id: number }).id)
          } catch {
            // The process died under this request: it may or may not have been committed.
          }
          if (acknowledged.length >= 15) killed ??= first.kill()
        }
      }
      await Promise.all(Array.from({ length: 6 }, writer))
      await killed

      const second = await startServer(db, options)
      const tags = (await second.call('GET', '/tags?hide_empty=0&per_page=100')).body.tags as Array<{ id: number }>
      const committed = new Set(tags.map((t) => t.id))
      for (const id of acknowledged) expect(committed.has(id)).toBe(true)
      const deliveredIds = () => new Set(r.got.map((g) => (JSON.parse(g.body) as Payload).data.id))
      await until(() => deliveredIds().size >= committed.size, 60_000, `deliveries of all ${committed.size} committed tags`)
      await sleep(1000) // late repeats would arrive by now

      const payloads = verified(r.got, e.secret)
      expect(payloads.every((p) => p.type === 'tag.created')).toBe(true)
      expect([...deliveredIds()].sort()).toEqual([...committed].sort())
      // One webhook-id per change: a change that arrived twice came both times as the same message.
      const ids = byWebhookId(r.got)
      expect(ids.size).toBe(committed.size)
    },
  )

  it(`[${kind}] two server processes with background runners deliver each change once per endpoint`, async () => {
    const r = await receiver()
    const db = await database(kind)
    const a = await startServer(db, RUNNER)
    const one = await addEndpoint(a, r.url('/one'))
    const two = await addEndpoint(a, r.url('/two'))
    const b = await startServer(db, RUNNER)
    // 40 tags, written alternately through each process, 4 at a time.
    let next = 0
    const writer = async () => {
      while (next < 40) {
        const i = next++
        const res = await (i % 2 ? a : b).call('POST', '/tags', { name: `Shared ${i}` })
        expect(res.status).toBe(201)
      }
    }
    await Promise.all(Array.from({ length: 4 }, writer))
    await until(() => r.got.length >= 80, 20_000, '80 deliveries')
    await sleep(1000) // a second sending of anything would arrive by now (10 polls of both runners)
    expect(r.got.length).toBe(80)
    for (const [path, e] of [
      ['/one', one],
      ['/two', two],
    ] as const) {
      const payloads = verified(r.at(path), e.secret)
      expect(payloads.length).toBe(40)
      expect(new Set(payloads.map((p) => p.data.id)).size).toBe(40)
      expect(new Set(payloads.map((p) => p.webhookId)).size).toBe(40)
    }
    expect(a.stderr() + b.stderr()).not.toMatch(/\[webhooks\]/)
  })
}

describe('webhook chaos: server processes on one SQLite file', () => {
  processSuite('sqlite')

  it('[sqlite] SIGKILL during a delivery: sent again with the same webhook-id once the lease runs out', { timeout: 90_000 }, async () => {
    const r = await receiver()
    // The receiver holds the first request to /slow open (and answers nothing); later ones get 200.
    r.answers.set('/slow', (_receipt, res) => {
      if (r.at('/slow').length > 1) res.end('ok')
    })
    const db = await database('sqlite')
    // The lease of a claimed delivery (leaseMs; by default timeoutMs + 30 s) shortened to 8 s:
    // the process dies holding it, and the repeat comes only once it ran out.
    const options = { ...RUNNER, timeoutMs: 1000, leaseMs: 8000 }
    const first = await startServer(db, options)
    const slow = await addEndpoint(first, r.url('/slow'), ['tag.*'])
    const fast = await addEndpoint(first, r.url('/fast'), ['tag.*'])
    const made = await first.call('POST', '/tags', { name: 'Held' })
    expect(made.status).toBe(201)
    await until(() => r.at('/slow').length === 1, 5000, 'the first attempt at /slow')
    await first.kill()
    const killedAt = Date.now()

    const second = await startServer(db, options)
    await until(() => r.at('/slow').length >= 2, 60_000, 'the repeat at /slow')
    await sleep(500)
    const [held, repeat] = r.at('/slow')
    expect(r.at('/slow').length).toBe(2)
    // Not before the dead runner's lease ran out: no one else sent it while it might still be in flight.
    expect(repeat!.at - held!.at).toBeGreaterThan(6_000)
    expect(repeat!.at - killedAt).toBeGreaterThan(4_000)
    const [p1, p2] = verified([held!, repeat!], slow.secret)
    expect(p2!.webhookId).toBe(p1!.webhookId)
    expect(repeat!.body).toBe(held!.body)
    expect(p2).toMatchObject({ type: 'tag.created', data: { id: made.body.id } })
    // The other endpoint got the change too (twice at most, if the kill came between its answer
    // and the record of it: then as the same message).
    expect(verified(r.at('/fast'), fast.secret).map((p) => p.type)).toContain('tag.created')
    expect(byWebhookId(r.at('/fast')).size).toBe(1)
    // The killed attempt was never recorded: the log holds the one that succeeded.
    const log = (await second.call('GET', `/webhooks/${slow.id}/deliveries`)).body
    expect(log.deliveries).toMatchObject([{ id: p1!.webhookId, status: 'succeeded', attempts: 1, last_status: 200 }])
  })
})

pgDescribe('webhook chaos: server processes on one PostgreSQL database', () => processSuite('postgres'))

// ---------------------------------------------------------------------------------------------
// A receiver's answer too big or too slow.

const MB = 1024 * 1024

function answersSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  it(`[${name}] a 50 MB answer and a trickled one are cut off, their start recorded, the rest never read`, async () => {
    const r = await receiver()
    // A recognisable 50 MB: a line numbering each 64 KiB chunk, padded.
    const chunk = (i: number) => Buffer.from(`chunk ${i} `.padEnd(64 * 1024, 'abcdefghijklmnopqrstuvwxyz'))
    const expected = chunk(0).subarray(0, 2048).toString('utf8')
    let hugeSent = 0
    let hugeClosed = false
    r.answers.set('/huge', (_receipt, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      let i = 0
      const pump = () => {
        while (hugeSent < 50 * MB && !res.destroyed) {
          const c = chunk(i++)
          hugeSent += c.length
          if (!res.write(c)) return void res.once('drain', pump)
        }
        res.end()
      }
      res.on('close', () => (hugeClosed = true))
      pump()
    })
    let trickled = 0
    r.answers.set('/trickle', (_receipt, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      const timer = setInterval(() => {
        res.write('.')
        trickled++
      }, 50)
      res.on('close', () => clearInterval(timer))
    })
    const app = await makeApp(makeStorage, { webhooks: { allowPrivate: true, timeoutMs: 1000, keepBytes: 2048, retrySchedule: [60] } })
    onTestFinished(() => app.close())
    const huge = (await app.post('/webhooks', { url: r.url('/huge') }, { as: 'administrator' })).body as { id: number; secret: string }
    const trickle = (await app.post('/webhooks', { url: r.url('/trickle') }, { as: 'administrator' })).body as {
      id: number
      secret: string
    }
    await app.post('/tags', { name: 'Big answers' }, { as: 'administrator' })

    // The run returns at all only because the endless trickle is cut (at the timeout: its
    // delivery says so below), and the huge answer as soon as 2 KiB are in.
    const report = await app.router.webhooks.run()
    expect(report).toMatchObject({ attempted: 2, succeeded: 1 })
    verified(r.at('/huge'), huge.secret)
    verified(r.at('/trickle'), trickle.secret)

    const [h] = (await app.get(`/webhooks/${huge.id}/deliveries`, { as: 'administrator' })).body.deliveries
    expect(h).toMatchObject({ status: 'succeeded', last_status: 200, last_response: expected })
    await until(() => hugeClosed, 5000, 'the huge answer to be cut')
    // What was sent before the cut is the socket buffers' worth, not the 50 MB.
    expect(hugeSent).toBeLessThan(16 * MB)

    const [t] = (await app.get(`/webhooks/${trickle.id}/deliveries`, { as: 'administrator' })).body.deliveries
    expect(t).toMatchObject({ status: 'pending', attempts: 1, last_status: null, last_response: 'timed out after 1000 ms' })
    expect(Date.parse(t.next_attempt_at) - Date.now()).toBeGreaterThan(30_000)
    // The receiver sees the cut a moment later (its socket's close): the trickle must stop, and
    // stay stopped, within a few seconds of the attempt.
    let stopped = -1
    const deadline = Date.now() + 5000
    while (stopped !== trickled && Date.now() < deadline) {
      stopped = trickled
      await sleep(300)
    }
    expect(trickled).toBe(stopped)
    expect(trickled).toBeLessThan(200)
  })
}

describe('webhook chaos: huge and slow answers', () => {
  answersSuite('memory', () => createMemoryStorage())
  answersSuite('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `answers-${++files}.sqlite`)) }))
})
