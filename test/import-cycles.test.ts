/**
 * The layers import one way (docs/architecture.md §1): no module of src/ or adapters/ reaches
 * itself through its imports, type-only imports included, since a type cycle is the first step
 * of a runtime one; no folder of src/ reaches itself through other folders either (a folder
 * cycle can be made of files that form no file cycle); and each folder imports only the folders
 * of the layers below its own, in the order LAYERS states and §1 of the architecture document
 * shows. The graph comes from TypeScript's own import scanner and module resolution
 * (test/support/import-graph.ts); the first two tests show it finds what it must.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { folderEdges, folderGraph, folderOf, importCycles, importGraph, layerViolations } from './support/import-graph.js'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * The layers from the host inwards, as docs/architecture.md §1 lists them: a folder of src/ (a
 * root file counts as a folder: `router` is `router.ts` with `router/`) imports only folders of
 * the rows below its own; the folders of one row import nothing of each other.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['adapters'],
  ['index', 'import', 'testing'],
  ['router'],
  ['caldav', 'doc'],
  ['routes'],
  ['resources'],
  ['representation', 'types'],
  ['urls'],
  ['context'],
  ['schemas', 'options'],
  ['custom-fields', 'cache', 'webhooks', 'sanitize', 'readers', 'host-request'],
  ['auth'],
  ['storage', 'recurrence'],
  ['http', 'time', 'wire-names'],
]

/** A file's folder: `adapters` for the host adapters outside src/, else its folder of src/. */
const layerFolder = (file: string) =>
  file.startsWith(`${root}adapters/`) ? 'adapters' : file.startsWith(`${root}src/`) ? folderOf(file, `${root}src/`) : undefined

/** The rows of the layer table in §1 of docs/architecture.md, each as the folders its `where` column names. */
function documentedLayers(): string[][] {
  const text = readFileSync(`${root}docs/architecture.md`, 'utf8')
  const section = text.slice(text.indexOf('## 1. '), text.indexOf('## 2. '))
  // The first table of the section, without its header and separator rows.
  const lines = section.split('\n')
  const first = lines.findIndex((line) => line.startsWith('| '))
  const end = lines.findIndex((line, index) => index > first && !line.startsWith('|'))
  const rows = lines.slice(first + 2, end)
  return rows.map((row) => {
    const where = row.split(' | ')[1] ?? ''
    const folders = [...where.matchAll(/`((?:src|adapters)\/[^`]*)`/g)].map(([, path]) => layerFolder(`${root}${path}`)!)
    return [...new Set(folders)].sort()
  })
}
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

  it('finds a folder cycle that no file cycle shows, an import up the layers and one beside', () => {
    const base = '/x/src/'
    const graph = new Map([
      [`${base}a/one.ts`, [`${base}b/two.ts`]],
      [`${base}b/two.ts`, []],
      [`${base}b/three.ts`, [`${base}a/four.ts`, `${base}c.ts`]],
      [`${base}a/four.ts`, []],
      [`${base}c.ts`, [`${base}c/five.ts`]],
      [`${base}c/five.ts`, [`${base}d/six.ts`]],
      [`${base}d/six.ts`, []],
    ])
    expect(importCycles(graph)).toEqual([])
    const folders = folderGraph(graph, (file) => folderOf(file, base), base)
    expect(importCycles(folderEdges(folders))).toEqual([['a', 'b']])
    // `c.ts` and `c/` are one folder: the front file's import of its own folder is no edge.
    expect([...folders.get('c')!.keys()]).toEqual(['d'])
    expect(layerViolations(folders, [['a'], ['b', 'c'], ['d']])).toEqual([
      'b imports a, above it: b/three.ts → a/four.ts',
      'b imports c, beside it in its layer: b/three.ts → c.ts',
    ])
    expect(layerViolations(folders, [['b'], ['a'], ['c']])).toEqual([
      'a imports b, above it: a/one.ts → b/two.ts',
      'c imports d, one of them in no layer: c/five.ts → d/six.ts',
    ])
  })

  it('has no cycle in src/ or adapters/', () => {
    const graph = importGraph([`${root}src`, `${root}adapters`], `${root}tsconfig.json`)
    expect(graph.size).toBeGreaterThan(80)
    // Every module of the tree is reached, so a cycle cannot hide in one the scan missed.
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0)
    expect(edges).toBeGreaterThan(graph.size)
    expect(importCycles(graph).map((cycle) => cycle.map((file) => file.slice(root.length)))).toEqual([])
  })

  describe('folders of src/', () => {
    const graph = importGraph([`${root}src`, `${root}adapters`], `${root}tsconfig.json`)
    const folders = folderGraph(graph, layerFolder, root)

    it('form no cycle', () => {
      const cycles = importCycles(folderEdges(folders))
      // Each cycle with the file imports that make its edges, so a failure says what to move.
      const shown = cycles.map((cycle) =>
        cycle.flatMap((from) =>
          [...folders.get(from)!].filter(([to]) => cycle.includes(to)).map(([to, files]) => `${from} → ${to}: ${files.join(', ')}`),
        ),
      )
      expect(shown).toEqual([])
    })

    it('each have their place in the layer table, which names no folder that is gone', () => {
      const present = [...new Set([...graph.keys()].map((file) => layerFolder(file)!))].sort()
      expect(present.length).toBeGreaterThan(15)
      expect(LAYERS.flat().sort()).toEqual(present)
    })

    it('import only the folders of lower layers', () => {
      expect(layerViolations(folders, LAYERS)).toEqual([])
    })

    it('are layered in docs/architecture.md §1 as in the table here', () => {
      expect(documentedLayers()).toEqual(LAYERS.map((row) => [...row].sort()))
    })
  })
})
