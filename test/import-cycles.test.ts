/**
 * The layers import one way (docs/architecture.md): no module of src/ or adapters/ reaches
 * itself through its imports, type-only imports included, since a type cycle is the first step
 * of a runtime one. The graph comes from TypeScript's own import scanner and module resolution
 * (test/support/import-graph.ts); the first test shows it finds the cycles it must.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { importCycles, importGraph } from './support/import-graph.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'import-graph-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('import graph', () => {
  it('finds cycles through type-only imports, re-exports and dynamic imports, and none in a tree', () => {
    const files: Record<string, string> = {
      'a.ts': "import type { B } from './b.js'\nexport type A = B[]\n",
      'b.ts': "export * from './c.js'\nexport type B = number\n",
      'c.ts': "export const load = () => import('./a.js')\n",
      'self.ts': "import { own } from './self.js'\nexport const own = 1\nvoid own\n",
      'leaf.ts': "import { load } from './c.js'\nimport { readFileSync } from 'node:fs'\nvoid load, readFileSync\n",
    }
    for (const [name, text] of Object.entries(files)) writeFileSync(join(scratch, name), text)
    const graph = importGraph([scratch], `${root}tsconfig.json`)
    expect(graph.get(join(scratch, 'leaf.ts'))).toEqual([join(scratch, 'c.ts')])
    const cycles = importCycles(graph).map((cycle) => cycle.map((file) => file.slice(scratch.length + 1)).sort())
    expect(cycles.sort()).toEqual([['a.ts', 'b.ts', 'c.ts'], ['self.ts']])
  })

  it('has no cycle in src/ or adapters/', () => {
    const graph = importGraph([`${root}src`, `${root}adapters`], `${root}tsconfig.json`)
    expect(graph.size).toBeGreaterThan(80)
    // Every module of the tree is reached, so a cycle cannot hide in one the scan missed.
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0)
    expect(edges).toBeGreaterThan(graph.size)
    expect(importCycles(graph).map((cycle) => cycle.map((file) => file.slice(root.length)))).toEqual([])
  })
})
