/**
 * Where does a route spend its CPU? Starts one bench server, profiles it (the inspector's CPU
 * profiler, started once the server is seeded) while wrk (or a plain loop) loads one route, and
 * prints the functions with the most self time.
 *
 *   node --import tsx bench/profile.ts [single|list|mixed] [memory|sqlite] [on|off]     (defaults: list sqlite off)
 *
 * The .cpuprofile is kept (its path is printed) for Chrome DevTools or speedscope.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startServer } from './load.js'
import { EDITOR_TOKEN, EVENTS_PATH } from './seed.js'

const [route = 'list', storage = 'sqlite', cache = 'off'] = process.argv.slice(2)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const TOP = Number(process.env.PROFILE_TOP ?? 25)

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
}

const dir = mkdtempSync(join(tmpdir(), 'calendar-profile-'))
const ready = await startServer(fileURLToPath(new URL('..', import.meta.url)), 'router.ts', { BENCH_STORAGE: storage, BENCH_CACHE: cache })
const { child } = ready
const reply = <T>(message: string) =>
  new Promise<T>((resolve) => {
    child.once('message', (answer) => resolve(answer as T))
    child.send(message)
  })
await reply('profile:start')
const path = route === 'mixed' ? ready.mixed.reads[0]! : ready.paths[route === 'single' ? 0 : 1]
const url = `http://127.0.0.1:${ready.port}${path}`
// `mixed`: the mixed workload's script (95% reads over its targets, 5% editor updates).
const script =
  route === 'mixed'
    ? [
        '-s',
        fileURLToPath(new URL('./mixed.lua', import.meta.url)),
        url,
        '--',
        EDITOR_TOKEN,
        EVENTS_PATH,
        ready.mixed.writeIds.join(','),
        ...ready.mixed.reads,
      ]
    : [url]
try {
  execFileSync('wrk', ['-t1', '-c50', `-d${SECONDS}s`, ...script], { stdio: 'inherit' })
} catch {
  // No wrk: a plain sequential loop still shows where the time goes.
  const agent = new http.Agent({ keepAlive: true })
  const stopAt = Date.now() + SECONDS * 1000
  while (Date.now() < stopAt) {
    await new Promise<void>((resolve) => http.get(url, { agent }, (res) => res.resume().on('end', resolve)))
  }
  agent.destroy()
}
const { profile } = await reply<{ profile: { nodes: ProfileNode[] } }>('profile:stop')
child.disconnect() // the server exits on disconnect
const file = join(dir, `${route}-${storage}-cache-${cache}.cpuprofile`)
writeFileSync(file, JSON.stringify(profile))
const total = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0)
const self = new Map<string, number>()
for (const n of profile.nodes) {
  const { functionName, url: source, lineNumber } = n.callFrame
  const where = source ? `${source.replace(/^file:\/\/.*?\/(src|adapters|bench|node_modules)\//, '$1/')}:${lineNumber + 1}` : ''
  const key = `${functionName || '(anonymous)'} ${where}`.trim()
  self.set(key, (self.get(key) ?? 0) + (n.hitCount ?? 0))
}
console.log(`\n${route} on ${storage}, response cache ${cache}: top self time of ${total} samples (${file})\n`)
for (const [key, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
  console.log(`${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`)
}
