/**
 * bench/pipeline.bench.ts run alternately in other checkouts and this one on one machine, for a
 * comparison a busy machine can still give: each run's table is printed as it comes, then per
 * cell the median of the runs and their spread (min-max), CPU µs per request.
 *
 *   node --import tsx bench/side-by-side.ts /path/to/other-checkout [more checkouts...] [--runs=3]
 *
 * The other checkouts get this checkout's bench/pipeline.bench.ts copied in (it imports only
 * the storages and bench/seed.ts), and need their own node_modules (or a symlink to one that has
 * their dependencies). ROUNDS, REQUESTS, CELLS and TURNS are passed on.
 *
 * @example
 * git worktree add /tmp/base 6431d53 && ln -s "$PWD/node_modules" /tmp/base/node_modules
 * ROUNDS=5 REQUESTS=1000 node --import tsx bench/side-by-side.ts /tmp/base 3
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const others = args.filter((a) => !a.startsWith('--')).map((a) => resolve(a))
const runsText = args.find((a) => a.startsWith('--runs='))?.slice(7) ?? '3'
if (!others.length) throw new Error('usage: side-by-side.ts /path/to/other-checkout [more...] [--runs=3]')
const here = fileURLToPath(new URL('..', import.meta.url))
for (const there of others) copyFileSync(join(here, 'bench/pipeline.bench.ts'), join(there, 'bench/pipeline.bench.ts'))
const rev = (dir: string) => execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
const dirty = (dir: string) =>
  execFileSync('git', ['-C', dir, 'status', '--porcelain', 'src'], { encoding: 'utf8' }).trim() ? '+changes' : ''
const sides = [...others, here].map((dir) => ({ name: `${rev(dir)}${dirty(dir)}`, dir }))
/** side -> cell ("memory on id") -> figures of each run. */
const figures = sides.map(() => new Map<string, number[]>())
const KINDS = ['id', 'list', 'write']

for (let run = 1; run <= Number(runsText); run++) {
  sides.forEach((side, s) => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'bench/pipeline.bench.ts'], {
      cwd: side.dir,
      encoding: 'utf8',
      env: process.env,
    })
    console.log(`== ${side.name} run ${run} (load ${loadAverage()})\n${out}`)
    for (const line of out.split('\n')) {
      const m = /^(memory|SQLite)\s+(on|off)\s+(\S+)\s+(\S+)\s+(\S+)\s*$/.exec(line)
      if (!m) continue
      KINDS.forEach((kind, k) => {
        const value = Number(m[3 + k])
        if (Number.isNaN(value)) return
        const key = `${m[1]} ${m[2]} ${kind}`
        figures[s]!.set(key, [...(figures[s]!.get(key) ?? []), value])
      })
    }
  })
}

function loadAverage(): string {
  return execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' ')
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const summary = (xs: number[] | undefined) =>
  xs ? `${median(xs).toFixed(1)} [${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}]` : '-'
const last = sides.length - 1
console.log(`\nCPU µs per request, median of ${runsText} runs [min-max]; ratio = ${sides[last]!.name} / ${sides[0]!.name} (medians)\n`)
console.log(`${'cell'.padEnd(18)}${sides.map((s) => s.name.padStart(24)).join('')}   ratio`)
for (const key of figures[last]!.keys()) {
  const [a, b] = [figures[0]!.get(key), figures[last]!.get(key)]
  const ratio = a && b ? (median(b) / median(a)).toFixed(2) : '-'
  console.log(`${key.padEnd(18)}${figures.map((f) => summary(f.get(key)).padStart(24)).join('')}   ${ratio}`)
}
