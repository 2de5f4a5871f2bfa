/**
 * The layers import one way (docs/architecture.md): no module of src/ or adapters/ reaches
 * itself through its imports, type-only imports included, since a type cycle is the first step
 * of a runtime one.
 */
import { fileURLToPath } from 'node:url'
import madge from 'madge'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))

describe('import graph', () => {
  it('has no cycle in src/ or adapters/', { timeout: 60_000 }, async () => {
    const graph = await madge([`${root}src`, `${root}adapters`], { fileExtensions: ['ts'], tsConfig: `${root}tsconfig.json` })
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(80)
    expect(graph.circular()).toEqual([])
  })
})
