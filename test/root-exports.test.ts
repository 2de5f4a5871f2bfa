/**
 * The root entry exports what an application needs and no more (issue 34: at most 60 names):
 * the router, its options and callers, the wire representations, the HTML filter and the rule
 * tools. The storage contract a backend's author implements is `calendar-events-router/storage`.
 * Names are counted by TypeScript's checker, types and values alike, as a consumer sees them.
 */
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const LIMIT = 60

const ENTRIES = ['src/index.ts', 'src/storage/index.ts', 'src/storage/types.ts'] as const
const path = (entry: string) => fileURLToPath(new URL(`../${entry}`, import.meta.url))

/** One program for the three files (building it is the slow part), made on first use. */
let checked: { program: ts.Program; checker: ts.TypeChecker } | null = null

function exportsOf(entry: (typeof ENTRIES)[number]): string[] {
  checked ??= (() => {
    const program = ts.createProgram(ENTRIES.map(path), {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      target: ts.ScriptTarget.ES2022,
      types: ['node'],
      skipLibCheck: true,
      noEmit: true,
    })
    return { program, checker: program.getTypeChecker() }
  })()
  const { program, checker } = checked
  const module = checker.getSymbolAtLocation(program.getSourceFile(path(entry))!)!
  return checker
    .getExportsOfModule(module)
    .map((s) => s.name)
    .sort()
}

// Type-checking the source tree takes seconds on a busy machine: not a figure this test asserts.
describe('the root entry', { timeout: 120_000 }, () => {
  it(`exports at most ${LIMIT} names, none of the backend contract but Storage and its outage error`, () => {
    const names = exportsOf('src/index.ts')
    expect(names.length, names.join(' ')).toBeLessThanOrEqual(LIMIT)
    expect(names).toContain('createCalendarRouter')
    expect(names).toContain('Storage')
    expect(names).toContain('StorageUnavailableError')
    for (const backendOnly of ['StorageTx', 'EventListQuery', 'JournalCapability', 'WebhookCapability', 'PostRecord'])
      expect(names).not.toContain(backendOnly)
  })

  it('leaves nothing of the storage contract behind: the storage entry has every name of src/storage/types.ts', () => {
    const storage = new Set(exportsOf('src/storage/index.ts'))
    const missing = exportsOf('src/storage/types.ts').filter((name) => !storage.has(name))
    expect(missing).toEqual([])
    for (const name of [
      'Storage',
      'StorageCore',
      'StorageTxCore',
      'BulkInsertTx',
      'ReservedIdsTx',
      'ImportLinksTx',
      'WebhookStore',
      'JournalPositionError',
    ])
      expect(storage.has(name), name).toBe(true)
  })
})
