/**
 * What does the router cost on Node for rich events, relative to node:http writing the very same
 * bytes? Prints storage (memory, SQLite) x response cache (on, off) x route as the ratio of
 * throughput to that raw server (plus signed-in editors' reads through the response cache), then a mixed workload on SQLite (95% anonymous reads over 20
 * lists, filters and single events, 5% writes by an editor) with throughput and p50/p99.
 *
 *   npm run bench          BENCH_SECONDS=10 to measure longer, BENCH_PEERS=1 to add hono/fastify,
 *                          BENCH_ONLY=mixed for the mixed workload alone, BENCH_ONLY=sqlite-cache
 *                          for SQLite with the response cache on alone (its hits check for other
 *                          processes' commits first), BENCH_ONLY=table for the table's eight anonymous
 *                          cells alone (no editor rows, no mixed workload: issue 34's comparison)
 *
 * Each server runs in its own process, pinned to CPU 0 while the load generator runs on CPU 1
 * (`taskset`, when there are two cores or more), so the client never steals the server's core.
 * `wrk` is used when on PATH (BENCH_CLIENT=builtin forces the built-in keep-alive client, which
 * runs on Node too and may saturate before a fast server does: watch the client CPU column).
 */
import type { ChildProcess } from 'node:child_process'
import http from 'node:http'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { hasCommand, PIN, pin, runWrk, serverCpu, startServer, wrkRate } from './load.js'
import { EDITOR_TOKEN, EVENTS_PATH, type Ready } from './seed.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ONLY_MIXED = process.env.BENCH_ONLY === 'mixed'
const ONLY_TABLE = process.env.BENCH_ONLY === 'table'
const WARMUP_SECONDS = 2
const CONNECTIONS = 50
const ROUTES = ['GET /events/{id}', 'GET /events?per_page=10'] as const
const WRITE_EVERY = 20 // 5% writes in the mixed workload

interface ServerSpec {
  name: string
  entry: string
  env?: Record<string, string>
  storage?: string
  cache?: string
  /** Headers of every read in the table (the signed-in rows send the editor's token). */
  headers?: Record<string, string>
}

const BASELINE: ServerSpec = { name: 'node:http, same bytes', entry: 'raw-bytes.ts' }
const STORAGES = ['memory', 'SQLite'] as const
const routerSpec = (storage: (typeof STORAGES)[number], cache: 'on' | 'off', editor = false): ServerSpec => ({
  name: `router, ${storage}, cache ${cache}${editor ? ', editor' : ''}`,
  entry: 'router.ts',
  env: { BENCH_STORAGE: storage.toLowerCase(), BENCH_CACHE: cache },
  storage,
  cache: editor ? `${cache}, editor` : cache,
  ...(editor ? { headers: { authorization: `Bearer ${EDITOR_TOKEN}` } } : {}),
})
// The table's rows: each storage with the response cache on and off, then signed-in editors
// (the response cache keeps reads per reader class, so theirs hit too).
const ROUTERS: ServerSpec[] =
  process.env.BENCH_ONLY === 'sqlite-cache'
    ? [routerSpec('SQLite', 'on'), routerSpec('SQLite', 'on', true)]
    : [
        ...STORAGES.flatMap((storage) => [routerSpec(storage, 'on'), routerSpec(storage, 'off')]),
        ...(ONLY_TABLE ? [] : STORAGES.map((storage) => routerSpec(storage, 'on', true))),
      ]
const PEERS: ServerSpec[] =
  process.env.BENCH_PEERS === '1'
    ? [
        { name: 'node:http, Map + stringify', entry: 'raw-map.ts' },
        { name: 'hono + node-server', entry: 'hono.ts' },
        { name: 'fastify', entry: 'fastify.ts' },
      ]
    : []

interface Result {
  rps: number
  p50: number // ms
  p99: number // ms
  errors: number
  clientCpu: number // share of one core
  serverCpu: number
}
type Measured = Omit<Result, 'serverCpu' | 'clientCpu'>

interface Running extends Ready, ServerSpec {
  child: ChildProcess
}

/** One request of a workload: reads are plain GETs, writes carry the editor's token and a body. */
interface Target {
  method: 'GET' | 'POST'
  path: string
  headers?: Record<string, string>
  body?: string
}

const USE_WRK = process.env.BENCH_CLIENT !== 'builtin' && hasCommand('wrk')
const repoRoot = fileURLToPath(new URL('..', import.meta.url))

async function start(spec: ServerSpec): Promise<Running> {
  try {
    return { ...spec, ...(await startServer(repoRoot, spec.entry, spec.env)) }
  } catch (error) {
    throw new Error(`${spec.name}: could not start`, { cause: error })
  }
}

const processCpu = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}

function send(agent: http.Agent, port: number, target: Target): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .request({ host: '127.0.0.1', port, path: target.path, method: target.method, headers: target.headers, agent }, (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (c: string) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      .on('error', reject)
      .end(target.body)
  })
}

const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN

/** The fallback load generator: CONNECTIONS keep-alive loops, each taking the next target in turn. */
async function builtin(port: number, next: () => Target, seconds: number): Promise<Measured> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const latencies: number[] = []
  let errors = 0
  const one = () =>
    new Promise<void>((resolve) => {
      const target = next()
      const t0 = performance.now()
      http
        .request({ host: '127.0.0.1', port, path: target.path, method: target.method, headers: target.headers, agent }, (res) => {
          if (res.statusCode! >= 400) errors++
          res.resume().on('end', () => {
            latencies.push(performance.now() - t0)
            resolve()
          })
        })
        .on('error', () => {
          errors++
          resolve()
        })
        .end(target.body)
    })
  const phase = async (duration: number) => {
    const stopAt = performance.now() + duration * 1000
    const loop = async () => {
      while (performance.now() < stopAt) await one()
    }
    const began = performance.now()
    await Promise.all(Array.from({ length: CONNECTIONS }, loop))
    return (performance.now() - began) / 1000
  }
  await phase(WARMUP_SECONDS)
  latencies.length = 0
  errors = 0
  const elapsed = await phase(seconds)
  agent.destroy()
  const sorted = Float64Array.from(latencies).sort()
  return { rps: latencies.length / elapsed, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), errors }
}

async function wrk(
  port: number,
  path: string,
  seconds: number,
  script: string[] = [],
  headers: Record<string, string> = {},
): Promise<Measured> {
  const url = `http://127.0.0.1:${port}${path}`
  const wrkArgs = (duration: number, latency: boolean) => [
    '-t1',
    `-c${CONNECTIONS}`,
    // wrk's default 2 s timeout drops the slowest responses from its latency figures (they count
    // as socket errors instead); a queue at 50 connections on a busy core can exceed that.
    '--timeout',
    '10s',
    `-d${duration}s`,
    ...(latency ? ['--latency'] : []),
    ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    ...(script.length ? ['-s', fileURLToPath(new URL('./mixed.lua', import.meta.url))] : []),
    url,
    ...(script.length ? ['--', ...script] : []),
  ]
  await runWrk(wrkArgs(WARMUP_SECONDS, false))
  const stdout = await runWrk(wrkArgs(seconds, true))
  const ms = (line: RegExp) => {
    const m = line.exec(stdout)
    if (!m) return NaN
    return Number(m[1]) * ({ us: 1e-3, ms: 1, s: 1e3 } as Record<string, number>)[m[2]!]!
  }
  const errorCounts = [/Non-2xx or 3xx responses:\s+(\d+)/, /Socket errors:.*?(\d+).*?(\d+).*?(\d+).*?(\d+)/].flatMap(
    (re) => re.exec(stdout)?.slice(1).map(Number) ?? [],
  )
  return {
    rps: wrkRate(stdout),
    p50: ms(/^\s*50%\s+([\d.]+)(us|ms|s)\s*$/m),
    p99: ms(/^\s*99%\s+([\d.]+)(us|ms|s)\s*$/m),
    errors: errorCounts.reduce((a, b) => a + b, 0),
  }
}

/** Runs one cell and measures both processes' CPU over it. */
async function cell(server: Running, measure: () => Promise<Measured>): Promise<Result> {
  const cpu0 = [processCpu(), await serverCpu(server)] as const
  const t0 = performance.now()
  const result = await measure()
  const wall = (performance.now() - t0) / 1000 // includes warm-up, as the CPU figures do
  process.stderr.write('.')
  return {
    ...result,
    clientCpu: (processCpu() - cpu0[0]) / wall,
    serverCpu: ((await serverCpu(server)) - cpu0[1]) / wall,
  }
}

const comparable = (body: string, port: number) =>
  JSON.parse(body.replaceAll(`127.0.0.1:${port}`, '127.0.0.1:PORT'), (key, value) =>
    // Each process seeds its own store, so creation times (and JSON-LD offers from them) may differ by a second.
    /^(date|modified)(_utc)?$|^validFrom$/.test(key) ? '' : value,
  )

function firstDifference(a: unknown, b: unknown, path = '$'): string | null {
  if (isDeepStrictEqual(a, b)) return null
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const inner = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`)
      if (inner !== null) return inner
    }
  }
  return `${path} (${JSON.stringify(a)?.slice(0, 60)} vs ${JSON.stringify(b)?.slice(0, 60)})`
}

/** Every server must answer the same thing, or the ratios compare different work. */
async function checkSameAnswers(baseline: Running, servers: Running[]): Promise<void> {
  const agent = new http.Agent({ keepAlive: false })
  for (let r = 0; r < ROUTES.length; r++) {
    const expected = await send(agent, baseline.port, { method: 'GET', path: baseline.paths[r]! })
    for (const server of servers) {
      const answer = await send(agent, server.port, { method: 'GET', path: server.paths[r]!, headers: server.headers })
      if (answer.status !== 200) throw new Error(`${server.name} ${ROUTES[r]}: status ${answer.status}`)
      const difference = firstDifference(comparable(answer.body, server.port), comparable(expected.body, baseline.port))
      if (difference !== null) {
        console.warn(`warning: ${server.name} answers ${ROUTES[r]} differently from the raw server at ${difference}`)
      } else if (answer.body.length !== expected.body.length) {
        console.warn(`note: ${server.name} ${ROUTES[r]}: same JSON, ${answer.body.length} vs ${expected.body.length} bytes`)
      }
    }
  }
}

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '-')

function table(header: string[], rows: string[][], leftColumns: number): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

function detailRow(name: string, route: string, result: Result, baseline: number): string[] {
  return [
    name,
    route,
    fixed(result.rps, 0),
    fixed(result.rps / baseline, 3),
    fixed(result.p50, 2),
    fixed(result.p99, 2),
    String(result.errors),
    USE_WRK ? '-' : `${fixed(result.clientCpu * 100, 0)}%`,
    `${fixed(result.serverCpu * 100, 0)}%`,
    fixed(cpuPerRequest(result), 0),
  ]
}

/**
 * Server CPU microseconds per request: CPU over the cell (warm-up included) divided by the
 * measured rate, so warm-up is assumed to run at the same pace. Unlike req/s it hardly moves when
 * other processes share the server's core.
 */
const cpuPerRequest = (result: Result) => (result.serverCpu / result.rps) * 1e6

/**
 * 95% anonymous reads cycling over 20 targets, 5% editor updates cycling over 20 events.
 *
 * `kept`: the built-in client, whose 50 keep-alive connections are opened in the warm-up and
 * carried into the measurement. `wrk`: a fresh wrk run, which opens its connections when the
 * measurement starts. A saturated Node server accepts about one new connection per event-loop
 * turn, so the last of the 50 waits over a second for its first answer, and wrk's
 * coordinated-omission correction (it adds samples below any answer slower than twice the
 * mean interval) turns those few into a p99 of hundreds of milliseconds. Both are printed: the
 * first is the steady state of 50 connections, the second what a burst of new clients sees.
 */
async function mixed(server: Running, client: 'kept' | 'wrk'): Promise<Result> {
  const { reads, writeIds } = server.mixed
  const agent = new http.Agent({ keepAlive: false })
  // One write up front proves the editor's token works, so the errors column means what it says.
  const probe = await send(agent, server.port, writeTarget(writeIds[0]!, 0))
  if (probe.status !== 200) throw new Error(`${server.name}: an editor's update answered ${probe.status} ${probe.body}`)
  if (client === 'wrk') {
    return cell(server, () => wrk(server.port, reads[0]!, SECONDS, [EDITOR_TOKEN, EVENTS_PATH, writeIds.join(','), ...reads]))
  }
  let n = 0
  const next = (): Target => {
    n++
    if (n % WRITE_EVERY === 0) return writeTarget(writeIds[(n / WRITE_EVERY) % writeIds.length]!, n)
    return { method: 'GET', path: reads[n % reads.length]! }
  }
  return cell(server, () => builtin(server.port, next, SECONDS))
}

function writeTarget(id: number, n: number): Target {
  return {
    method: 'POST',
    path: `${EVENTS_PATH}/${id}`,
    headers: { authorization: `Bearer ${EDITOR_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: `Edited under load ${n}` }),
  }
}

async function main() {
  if (PIN) pin(process.pid, 1)
  console.log(
    `node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown cpu'} x${os.cpus().length}; ` +
      `client: ${USE_WRK ? 'wrk -t1' : 'built-in http.Agent'}; ${CONNECTIONS} connections; ` +
      `${PIN ? 'server on CPU 0, client on CPU 1; ' : 'not pinned; '}${WARMUP_SECONDS}s warm-up + ${SECONDS}s per cell`,
  )
  const specs = [BASELINE, ...ROUTERS, ...PEERS]
  const [baseline, ...servers] = await Promise.all(specs.map(start))
  try {
    await checkSameAnswers(baseline!, servers)
    const results = new Map<string, (Result & { baseline: number; baselineCpu: number })[]>()
    const details: string[][] = []
    const measureGet = (server: Running, path: string) =>
      cell(server, () =>
        USE_WRK
          ? wrk(server.port, path, SECONDS, [], server.headers)
          : builtin(server.port, () => ({ method: 'GET', path, headers: server.headers }), SECONDS),
      )
    // BENCH_ONLY=mixed skips the table (quicker when working on the mixed workload).
    for (let r = 0; r < (ONLY_MIXED ? 0 : ROUTES.length); r++) {
      for (const server of servers) {
        // The raw server is measured right before each subject, so a ratio compares two cells a few
        // seconds apart: load from other processes on the machine drifts less between them.
        const b = await measureGet(baseline!, baseline!.paths[r]!)
        details.push(detailRow(baseline!.name, ROUTES[r]!, b, b.rps))
        const result = await measureGet(server, server.paths[r]!)
        results.set(server.name, [...(results.get(server.name) ?? []), { ...result, baseline: b.rps, baselineCpu: cpuPerRequest(b) }])
        details.push(detailRow(server.name, ROUTES[r]!, result, b.rps))
      }
    }
    const mixedRows: string[][] = []
    for (const server of servers.filter((s) => !ONLY_TABLE && s.storage === 'SQLite' && !s.headers)) {
      for (const client of USE_WRK ? (['kept', 'wrk'] as const) : (['kept'] as const)) {
        const result = await mixed(server, client)
        mixedRows.push([
          server.storage!,
          server.cache!,
          client === 'kept' ? 'kept (built-in)' : 'new (wrk)',
          fixed(result.rps, 0),
          fixed(result.p50, 2),
          fixed(result.p99, 2),
          String(result.errors),
          `${fixed(result.serverCpu * 100, 0)}%`,
          fixed(cpuPerRequest(result), 0),
        ])
      }
    }
    process.stderr.write('\n')

    if (!ONLY_MIXED) {
      console.log('\nThroughput as a ratio to node:http writing the same bytes (rich events):\n')
      const ratioRows = servers
        .filter((s) => s.storage)
        .map((s) => [s.storage!, s.cache!, ...results.get(s.name)!.map((res) => fixed(res.rps / res.baseline, 3))])
      console.log(table(['storage', 'response cache', ...ROUTES], ratioRows, 2))
      console.log('\nThe same as a ratio of server CPU per request (raw / router; steadier on a busy machine):\n')
      const cpuRows = servers
        .filter((s) => s.storage)
        .map((s) => [s.storage!, s.cache!, ...results.get(s.name)!.map((res) => fixed(res.baselineCpu / cpuPerRequest(res), 3))])
      console.log(table(['storage', 'response cache', ...ROUTES], cpuRows, 2))
      console.log('\nEach cell:\n')
      console.log(
        table(['server', 'route', 'req/s', 'ratio', 'p50 ms', 'p99 ms', 'errors', 'client cpu', 'server cpu', 'cpu µs/req'], details, 2),
      )
    }
    if (mixedRows.length) {
      console.log(
        `\nMixed workload: 95% anonymous GETs over ${servers[0]!.mixed.reads.length} lists, filters and single events, ` +
          `5% editor updates (POST /events/{id}):\n`,
      )
      console.log(
        table(
          ['storage', 'response cache', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'server cpu', 'cpu µs/req'],
          mixedRows,
          3,
        ),
      )
    }
    if (!USE_WRK && details.some((row) => parseInt(row[7]!) >= 90)) {
      console.log(
        '\nclient cpu near 100%: the built-in load generator, not the server, set the pace in those rows,\n' +
          'so their ratios understate the differences. Install wrk for sharper figures.',
      )
    }
  } finally {
    for (const server of [baseline!, ...servers]) server.child.kill()
  }
}

await main()
