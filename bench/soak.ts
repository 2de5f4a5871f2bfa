/**
 * A bounded load on the SQLite-backed example server over loopback: mixed reads and writes from
 * a fixed number of workers, the server's RSS sampled every second. Used by bench/soak.bench.ts
 * (60 s) and, shortened, by the test suite.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface SoakResult {
  seconds: number
  requests: number
  errors: number
  byKind: Record<string, number>
  /** Server RSS in MiB, one sample per second. */
  rss: number[]
  /** RSS at the end of warm-up and at the end, MiB. */
  rssAfterWarmup: number
  rssEnd: number
}

const rssOf = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : NaN
}

export async function soak(options: { seconds: number; warmupSeconds: number; workers?: number }): Promise<SoakResult> {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-soak-'))
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/node-server/server.ts'], {
    env: { ...process.env, PORT: '0', CALENDAR_DB: join(dir, 'soak.db'), CALENDAR_API_TOKENS: 'w:administrator' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    const root = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString()
        const m = /listening on (http:\/\/\S+?)\/?\s/.exec(out)
        if (m) resolve(m[1] as string)
      })
      child.once('exit', (code) => reject(new Error(`server exited (${code})`)))
    })
    const headers = { authorization: 'Bearer w', 'content-type': 'application/json' }
    const ids: number[] = []
    const byKind: Record<string, number> = {}
    let errors = 0
    let requests = 0
    const deadline = Date.now() + options.seconds * 1000
    const rss: number[] = []
    const sampler = setInterval(() => rss.push(rssOf(child.pid as number)), 1000)
    const kinds = ['list', 'list', 'list', 'read', 'read', 'create', 'update', 'search', 'venues', 'delete'] as const
    const worker = async (w: number) => {
      for (let i = 0; Date.now() < deadline; i++) {
        const kind = kinds[(i + w) % kinds.length] as (typeof kinds)[number]
        const id = ids[(i * 7 + w) % Math.max(1, ids.length)]
        let res: Response
        let consumed = false
        if (kind === 'create' || id === undefined) {
          const day = 1 + (i % 27)
          res = await fetch(`${root}/events`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              title: `Soak ${w}-${i}`,
              start_date: `2027-02-${day} 10:00`,
              end_date: `2027-02-${day} 12:00`,
              categories: [`cat ${i % 5}`],
              venue: { venue: `Hall ${i % 3}` },
            }),
          })
          if (res.status === 201) {
            ids.push(((await res.json()) as { id: number }).id)
            consumed = true
          }
        } else if (kind === 'update')
          res = await fetch(`${root}/events/${id}`, { method: 'PATCH', headers, body: JSON.stringify({ title: `Updated ${i}` }) })
        else if (kind === 'delete') res = await fetch(`${root}/events/${id}`, { method: 'DELETE', headers })
        else if (kind === 'read') res = await fetch(`${root}/events/${id}`)
        else if (kind === 'search') res = await fetch(`${root}/events?search=soak&per_page=5`)
        else if (kind === 'venues') res = await fetch(`${root}/venues?per_page=5`)
        else res = await fetch(`${root}/events?per_page=10&start_date=2027-01-01&end_date=2027-12-31`)
        requests++
        byKind[kind] = (byKind[kind] ?? 0) + 1
        // 403/410 are expected answers for an event another worker trashed meanwhile.
        if (res.status >= 500 || ![200, 201, 403, 410].includes(res.status)) errors++
        if (!consumed) await res.arrayBuffer()
      }
    }
    await Promise.all(Array.from({ length: options.workers ?? 8 }, (_, w) => worker(w)))
    clearInterval(sampler)
    const warm = Math.min(rss.length - 1, Math.max(0, options.warmupSeconds - 1))
    return { seconds: options.seconds, requests, errors, byKind, rss, rssAfterWarmup: rss[warm] ?? NaN, rssEnd: rss[rss.length - 1] ?? NaN }
  } finally {
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
    rmSync(dir, { recursive: true, force: true })
  }
}
