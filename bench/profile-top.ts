/**
 * The functions a CPU profile (.cpuprofile, from bench/pipeline.bench.ts with PROFILE=dir, bench/profile.ts
 * or `node --cpu-prof`) spends its time in: the top by self time and the top by total time (the
 * share of samples with the function anywhere on the stack, counted once per sample).
 *
 *   node --import tsx bench/profile-top.ts file.cpuprofile [top=25]
 */
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

const [file, top = '25'] = process.argv.slice(2)
if (!file) throw new Error('usage: profile-top.ts file.cpuprofile [top]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[] }
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

const keyOf = (n: ProfileNode) => {
  const { functionName, url, lineNumber } = n.callFrame
  const where = url ? `${url.replace(/^file:\/\/.*?\/(src|adapters|bench|node_modules)\//, '$1/')}:${lineNumber + 1}` : ''
  return `${functionName || '(anonymous)'} ${where}`.trim()
}
const self = new Map<string, number>()
const total = new Map<string, number>()
let samples = 0
for (const id of profile.samples) {
  const node = byId.get(id)!
  const key = keyOf(node)
  if (key.startsWith('(idle)')) continue
  samples++
  self.set(key, (self.get(key) ?? 0) + 1)
  const seen = new Set<string>()
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(keyOf(byId.get(at)!))
  for (const k of seen) total.set(k, (total.get(k) ?? 0) + 1)
}
const show = (title: string, counts: Map<string, number>) => {
  console.log(`\n${title} (${samples} samples, idle left out)`)
  for (const [key, hits] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
    console.log(`${((hits / samples) * 100).toFixed(1).padStart(5)}%  ${key}`)
}
show('self', self)
show('total', total)

// FOCUS=name: who calls the functions whose key contains it (the stack above each sample in it).
const focus = process.env.FOCUS
if (focus) {
  const paths = new Map<string, number>()
  for (const id of profile.samples) {
    const chain: string[] = []
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) chain.push(keyOf(byId.get(at)!).split(' ')[0]!)
    const i = chain.findIndex((k) => k.includes(focus))
    if (i < 0) continue
    const key = chain.slice(i, i + 6).join(' < ')
    paths.set(key, (paths.get(key) ?? 0) + 1)
  }
  console.log(`\ncallers of ${focus}`)
  for (const [key, hits] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
    console.log(`${((hits / samples) * 100).toFixed(1).padStart(5)}%  ${key}`)
}
