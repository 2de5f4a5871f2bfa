/**
 * What does the router cost on Node, relative to node:http doing (almost) nothing?
 *
 *   node --import tsx bench/adapter.bench.ts        BENCH_SECONDS=10 to measure longer
 *
 * Each server runs in its own process so it never shares an event loop with the load generator.
 * `wrk` is used when on PATH (BENCH_CLIENT=builtin forces the built-in keep-alive client, which
 * runs on Node too and may saturate before a fast server does: watch the client CPU column).
 */
import { execFile, execFileSync, fork, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual, promisify } from 'node:util'
import type { Ready } from './seed.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const WARMUP_SECONDS = 2
const CONNECTIONS = 50
const ROUTES = ['GET /events/{id}', 'GET /events?per_page=10'] as const

const SERVERS = [
  { name: '(1) node:http, precomputed bytes', entry: 'raw-bytes.ts' },
  { name: '(2) node:http, Map + stringify', entry: 'raw-map.ts' },
  { name: '(3) router via toNodeHandler', entry: 'router.ts' },
  { name: '(4) router + read cache', entry: 'router-cached.ts' },
  { name: '(5) hono + node-server', entry: 'hono.ts' },
  { name: '(6) fastify', entry: 'fastify.ts' },
  { name: '(7) router, SQLite', entry: 'router-sqlite.ts' },
  { name: '(8) router, SQLite + cache', entry: 'router-sqlite-cached.ts' },
]

interface Result {
  rps: number
  p50: number // ms
  p99: number // ms
  errors: number
  clientCpu: number // share of one core
  serverCpu: number
}

interface Running extends Ready {
  name: string
  child: ChildProcess
}

const repoRoot = fileURLToPath(new URL('..', import.meta.url))

function start(name: string, entry: string): Promise<Running> {
  const child = fork(fileURLToPath(new URL(`./servers/${entry}`, import.meta.url)), [], {
    cwd: repoRoot,
    execArgv: ['--import', 'tsx'],
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: not ready after 120 s`)), 120_000)
    child.once('message', (ready: Ready) => {
      clearTimeout(timer)
      resolve({ ...ready, name, child })
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name}: exited with ${code} before listening`))
    })
  })
}

/** CPU seconds the server process used so far, asked over IPC. */
function serverCpu(server: Running): Promise<number> {
  return new Promise((resolve) => {
    server.child.once('message', ({ cpu }: { cpu: NodeJS.CpuUsage }) => resolve((cpu.user + cpu.system) / 1e6))
    server.child.send('cpu')
  })
}

const processCpu = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}

function get(agent: http.Agent, port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (c: string) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      .on('error', reject)
  })
}

const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN

async function builtin(port: number, path: string, seconds: number): Promise<Omit<Result, 'serverCpu' | 'clientCpu'>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const latencies: number[] = []
  let errors = 0
  const one = () =>
    new Promise<void>((resolve) => {
      const t0 = performance.now()
      http
        .get({ host: '127.0.0.1', port, path, agent }, (res) => {
          if (res.statusCode !== 200) errors++
          res.resume().on('end', () => {
            latencies.push(performance.now() - t0)
            resolve()
          })
        })
        .on('error', () => {
          errors++
          resolve()
        })
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

const run = promisify(execFile)

async function wrk(port: number, path: string, seconds: number): Promise<Omit<Result, 'serverCpu' | 'clientCpu'>> {
  const url = `http://127.0.0.1:${port}${path}`
  const args = ['-t1', `-c${CONNECTIONS}`]
  await run('wrk', [...args, `-d${WARMUP_SECONDS}s`, url])
  const { stdout } = await run('wrk', [...args, `-d${seconds}s`, '--latency', url])
  const ms = (line: RegExp) => {
    const m = line.exec(stdout)
    if (!m) return NaN
    return Number(m[1]) * ({ us: 1e-3, ms: 1, s: 1e3 } as Record<string, number>)[m[2]!]!
  }
  const errorCounts = [/Non-2xx or 3xx responses:\s+(\d+)/, /Socket errors:.*?(\d+).*?(\d+).*?(\d+).*?(\d+)/].flatMap(
    (re) => re.exec(stdout)?.slice(1).map(Number) ?? [],
  )
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN),
    p50: ms(/^\s*50%\s+([\d.]+)(us|ms|s)\s*$/m),
    p99: ms(/^\s*99%\s+([\d.]+)(us|ms|s)\s*$/m),
    errors: errorCounts.reduce((a, b) => a + b, 0),
  }
}

function hasWrk(): boolean {
  if (process.env.BENCH_CLIENT === 'builtin') return false
  try {
    execFileSync('which', ['wrk'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Every server must answer the same thing, or the ratios compare different work. */
async function checkSameAnswers(servers: Running[]): Promise<void> {
  const agent = new http.Agent({ keepAlive: false })
  for (let r = 0; r < ROUTES.length; r++) {
    // Links embed each server's own port; blank it out so only real differences show.
    const answers = await Promise.all(
      servers.map(async (s) => {
        const { status, body } = await get(agent, s.port, s.paths[r]!)
        return { status, body: body.replaceAll(`127.0.0.1:${s.port}`, '127.0.0.1:PORT') }
      }),
    )
    const reference = answers[answers.length - 1]!
    answers.forEach((answer, i) => {
      if (answer.status !== 200) throw new Error(`${servers[i]!.name} ${ROUTES[r]}: status ${answer.status}`)
      if (!isDeepStrictEqual(JSON.parse(answer.body), JSON.parse(reference.body))) {
        console.warn(`warning: ${servers[i]!.name} answers ${ROUTES[r]} differently from the router`)
      } else if (answer.body.length !== reference.body.length) {
        console.warn(`note: ${servers[i]!.name} ${ROUTES[r]}: same JSON, ${answer.body.length} vs ${reference.body.length} bytes`)
      }
    })
  }
}

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '-')

async function main() {
  const useWrk = hasWrk()
  console.log(
    `node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown cpu'} x${os.cpus().length}; ` +
      `client: ${useWrk ? 'wrk -t1' : 'built-in http.Agent'}; ${CONNECTIONS} connections; ` +
      `${WARMUP_SECONDS}s warm-up + ${SECONDS}s per cell`,
  )
  const servers = await Promise.all(SERVERS.map((s) => start(s.name, s.entry)))
  try {
    await checkSameAnswers(servers)
    const rows: string[][] = []
    let clientBound = false
    for (let r = 0; r < ROUTES.length; r++) {
      let baseline = NaN
      for (const server of servers) {
        const cpu0 = [processCpu(), await serverCpu(server)] as const
        const t0 = performance.now()
        const measure = useWrk ? wrk : builtin
        const result = await measure(server.port, server.paths[r]!, SECONDS)
        const wall = (performance.now() - t0) / 1000 // includes warm-up, as the CPU figures do
        const cpu: Result = {
          ...result,
          clientCpu: (processCpu() - cpu0[0]) / wall,
          serverCpu: ((await serverCpu(server)) - cpu0[1]) / wall,
        }
        if (Number.isNaN(baseline)) baseline = cpu.rps
        if (!useWrk && cpu.clientCpu >= 0.9) clientBound = true
        rows.push([
          server.name,
          ROUTES[r]!,
          fixed(cpu.rps, 0),
          `${fixed(cpu.rps / baseline, 2)}x`,
          fixed(cpu.p50, 2),
          fixed(cpu.p99, 2),
          String(cpu.errors),
          useWrk ? '-' : `${fixed(cpu.clientCpu * 100, 0)}%`,
          `${fixed(cpu.serverCpu * 100, 0)}%`,
        ])
        process.stderr.write('.')
      }
    }
    process.stderr.write('\n')
    const header = ['server', 'route', 'req/s', 'vs (1)', 'p50 ms', 'p99 ms', 'errors', 'client cpu', 'server cpu']
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
    const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
    console.log(line(header))
    console.log(widths.map((w) => '-'.repeat(w)).join('  '))
    for (const row of rows) console.log(line(row))
    if (clientBound) {
      console.log(
        '\nclient cpu near 100%: the built-in load generator, not the server, set the pace in those rows,\n' +
          'so their ratios understate the differences. Install wrk for sharper figures.',
      )
    }
  } finally {
    for (const server of servers) server.child.kill()
  }
}

await main()
