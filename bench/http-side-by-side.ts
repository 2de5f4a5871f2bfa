/**
 * The adapter bench's eight anonymous cells (bench/adapter.bench.ts: storage x response cache x
 * route, each as a ratio of throughput to node:http writing the same bytes), this checkout against
 * another one, interleaved finely enough to compare versions a few percent apart on a machine
 * whose speed drifts by more than that within minutes.
 *
 *   node --import tsx bench/http-side-by-side.ts /path/to/other/checkout
 *        ROUNDS=1 rounds, each with fresh server processes; in each, BURSTS=6 measurements per
 *        server and cell, BURST_SECONDS=4 each (after 1 s of warm-up);
 *        CELLS=memory-on-id,sqlite-off-list to measure only those
 *
 * Both checkouts' servers (each its own raw server, since the versions' bytes may differ, and its
 * four routers) run at once, pinned to CPU 0, idle but for the one under load; wrk runs on CPU 1.
 * A cell is measured in bursts, each burst loading the four servers of the cell in turn, in
 * ABBA order (raw and router of one side, then the other's; the next burst reversed), so a
 * drift of the machine's speed falls on both sides alike (see `report` for the figures).
 */
import { execFileSync } from 'node:child_process'
import http from 'node:http'
import { basename, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PIN, hasCommand, pin, runWrk, serverCpu, startServer, wrkRate, type Started } from './load.js'

const ROUNDS = Number(process.env.ROUNDS ?? 1)
const BURSTS = Number(process.env.BURSTS ?? 6)
const BURST_SECONDS = Number(process.env.BURST_SECONDS ?? 4)
const CONNECTIONS = 50
const CELLS = process.env.CELLS ? new Set(process.env.CELLS.toLowerCase().split(',')) : null
const STORAGES = ['memory', 'sqlite'] as const
const CACHES = ['on', 'off'] as const
const ROUTES = ['id', 'list'] as const

interface Side {
  label: string
  raw: Started
  routers: Map<string, Started>
}
interface Sample {
  rps: number
  cpuPerRequest: number // µs
}
interface Burst {
  now: { raw: Sample; router: Sample }
  before: { raw: Sample; router: Sample }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const label = (root: string) => {
  try {
    return execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
  } catch {
    return basename(root)
  }
}

async function startSide(root: string): Promise<Side> {
  const combos = STORAGES.flatMap((storage) => CACHES.map((cache) => [storage, cache] as const))
  const [raw, ...routers] = await Promise.all([
    startServer(root, 'raw-bytes.ts'),
    ...combos.map(([storage, cache]) => startServer(root, 'router.ts', { BENCH_STORAGE: storage, BENCH_CACHE: cache })),
  ])
  return { label: label(root), raw: raw!, routers: new Map(combos.map(([s, c], i) => [`${s}-${c}`, routers[i]!])) }
}

/** Every router must answer both routes with 200, or the cells would measure an error page. */
async function checkAnswers(side: Side): Promise<void> {
  for (const [name, server] of side.routers) {
    for (const path of server.paths) {
      const status = await new Promise<number>((done, fail) =>
        http.get({ host: '127.0.0.1', port: server.port, path }, (res) => done(res.resume().statusCode!)).on('error', fail),
      )
      if (status !== 200) throw new Error(`${side.label} ${name} ${path}: status ${status}`)
    }
  }
}

async function load(server: Started, path: string): Promise<Sample> {
  const args = (seconds: number) => [
    '-t1',
    `-c${CONNECTIONS}`,
    '--timeout',
    '10s',
    `-d${seconds}s`,
    `http://127.0.0.1:${server.port}${path}`,
  ]
  await runWrk(args(1))
  const cpu0 = await serverCpu(server)
  const stdout = await runWrk(args(BURST_SECONDS))
  const cpu = (await serverCpu(server)) - cpu0
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? NaN)
  if (/Non-2xx|Socket errors/.test(stdout)) throw new Error(`errors under load at ${path}:\n${stdout}`)
  return { rps: wrkRate(stdout), cpuPerRequest: (cpu / requests) * 1e6 }
}

async function measureCell(now: Side, before: Side, combo: string, route: number): Promise<Burst[]> {
  const bursts: Burst[] = []
  for (let b = 0; b < BURSTS; b++) {
    const order = b % 2 === 0 ? [now, before] : [before, now]
    const got = new Map<Side, { raw: Sample; router: Sample }>()
    for (const side of order) {
      const router = side.routers.get(combo)!
      // ABBA within the burst too: raw, router, router, raw.
      const first = side === order[0]
      const a = first ? await load(side.raw, side.raw.paths[route]!) : await load(router, router.paths[route]!)
      const z = first ? await load(router, router.paths[route]!) : await load(side.raw, side.raw.paths[route]!)
      got.set(side, first ? { raw: a, router: z } : { raw: z, router: a })
    }
    const burst = { now: got.get(now)!, before: got.get(before)! }
    bursts.push(burst)
    const rates = (x: { raw: Sample; router: Sample }) => `raw ${x.raw.rps.toFixed(0)}, router ${x.router.rps.toFixed(0)}`
    process.stderr.write(`${combo} ${ROUTES[route]} burst ${b + 1}: before ${rates(burst.before)}; now ${rates(burst.now)}\n`)
  }
  return bursts
}

const f = (n: number, digits: number) => n.toFixed(digits)

/**
 * A cell's figures. The raw server's rate jumps between two levels from one second to the next
 * (27k and 40k requests/s for the same bytes, seen on a 2-core VM), so a ratio taken per burst
 * carries that jump; each side's ratio is its router's median rate over its raw server's median
 * rate, and "now / before" pairs the routers alone, burst by burst (the versions' bytes differ by
 * a few fields at most, which the ratio column shows).
 */
function report(cell: string, bursts: Burst[]): string[] {
  const m = (pick: (x: Burst) => number) => median(bursts.map(pick))
  const ratio = (side: 'now' | 'before') => m((x) => x[side].router.rps) / m((x) => x[side].raw.rps)
  const paired = bursts.map((x) => x.now.router.rps / x.before.router.rps)
  const pairedCpu = bursts.map((x) => x.before.router.cpuPerRequest / x.now.router.cpuPerRequest)
  const range = (xs: number[]) => `${f(median(xs), 3)} (${f(Math.min(...xs), 2)}–${f(Math.max(...xs), 2)})`
  return [
    cell,
    `${f(ratio('before'), 3)} → ${f(ratio('now'), 3)}`,
    `${f(ratio('now') / ratio('before'), 3)}`,
    range(paired),
    range(pairedCpu),
    `${f(
      m((x) => x.before.router.rps),
      0,
    )} → ${f(
      m((x) => x.now.router.rps),
      0,
    )}`,
    `${f(
      m((x) => x.before.router.cpuPerRequest),
      1,
    )} → ${f(
      m((x) => x.now.router.cpuPerRequest),
      1,
    )}`,
  ]
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

/** The cells measured, each a storage-cache combination and a route. */
const cells = () =>
  STORAGES.flatMap((storage) =>
    CACHES.flatMap((cache) => ROUTES.map((name, route) => ({ name: `${storage}-${cache}-${name}`, combo: `${storage}-${cache}`, route }))),
  ).filter((c) => !CELLS || CELLS.has(c.name))

/** One round: both sides' servers started afresh, every cell measured, the servers stopped. */
async function round(other: string, into: Map<string, Burst[]>): Promise<string> {
  const [now, before] = await Promise.all([startSide(fileURLToPath(new URL('..', import.meta.url))), startSide(resolve(other))])
  try {
    await Promise.all([checkAnswers(now), checkAnswers(before)])
    for (const cell of cells()) into.get(cell.name)!.push(...(await measureCell(now, before, cell.combo, cell.route)))
    return `before: ${before.label}, now: ${now.label}`
  } finally {
    for (const side of [now, before]) for (const server of [side.raw, ...side.routers.values()]) server.child.kill()
  }
}

async function main() {
  const other = process.argv[2]
  if (!other) throw new Error('usage: node --import tsx bench/http-side-by-side.ts /path/to/other/checkout')
  if (!hasCommand('wrk')) throw new Error('wrk is needed (apt-get install wrk)')
  if (PIN) pin(process.pid, 1)
  const bursts = new Map(cells().map((c) => [c.name, [] as Burst[]]))
  let sides = ''
  // Fresh processes each round: two processes of one server can differ by more than the
  // versions do (the same raw server, seeded alike, was 15% apart for a whole run).
  for (let r = 0; r < ROUNDS; r++) sides = await round(other, bursts)
  process.stderr.write('\n')
  console.log(
    `${sides}; wrk -t1 -c${CONNECTIONS}; ${ROUNDS} rounds of fresh servers x ${BURSTS} bursts of ${BURST_SECONDS} s per server and cell; ` +
      (PIN ? 'servers on CPU 0, wrk on CPU 1' : 'not pinned'),
  )
  const header = [
    'cell',
    'ratio to raw: before → now',
    'quotient',
    'router req/s, now / before (range)',
    'by CPU per request',
    'router req/s',
    'router CPU µs/req',
  ]
  console.log(
    table(
      header,
      [...bursts].map(([name, measured]) => report(name, measured)),
    ),
  )
}

await main()
