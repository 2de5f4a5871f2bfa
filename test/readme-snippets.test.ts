/**
 * Every ```ts block of README.md compiles under `strict` against the package's own types: a
 * newcomer pastes them. Each block is a module of its own, importing the package by its public
 * names (mapped to src/ and adapters/, as tsup builds them). The few names a snippet uses
 * without defining (the host's `calendar`, `app`, `request`, ...) are declared once below, with
 * the types a host has. A block that is deliberately not a whole program says so in the README
 * with an `<!-- snippet: fragment -->` line right above it, and is skipped here.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createMemoryStorage } from '../src/storage/memory.js'
import { API, makeApp } from './http/harness.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const README = readFileSync(`${ROOT}README.md`, 'utf8')

/** The package's public names, as package.json's exports map them to the built entries. */
const PATHS: Record<string, string[]> = {
  'calendar-events-router': ['src/index.ts'],
  'calendar-events-router/storage/memory': ['src/storage/memory.ts'],
  'calendar-events-router/storage/sql': ['src/storage/sql/index.ts'],
  'calendar-events-router/testing': ['src/testing/index.ts'],
  'calendar-events-router/import': ['src/import/index.ts'],
  'calendar-events-router/node': ['adapters/node/index.ts'],
  'calendar-events-router/express': ['adapters/express/index.ts'],
  'calendar-events-router/bun': ['adapters/bun/index.ts'],
}

/** What the snippets take from their surroundings: the host's router, app and callers. */
const PRELUDE = `
import type { AuthRequest, CalendarRouter, Principal } from 'calendar-events-router'
import type { Express } from 'express'
import type { IncomingMessage, ServerResponse } from 'node:http'
declare global {
  const calendar: CalendarRouter
  const router: CalendarRouter
  const request: Request
  const app: Express
  const adminToken: string
  function lookUpCaller(request: AuthRequest): Principal | null
  /** The host's own app, Node style or fetch style. */
  function myApp(req: IncomingMessage, res: ServerResponse): void
  function myApp(request: Request): Response | Promise<Response>
  /** Deno's serve, as its runtime types have it. */
  namespace Deno {
    function serve(handler: (request: Request) => Response | Promise<Response>): unknown
  }
}
export {}
`

interface Block {
  line: number
  code: string
}

/** The ```ts blocks, with their line, minus those marked as fragments. */
function blocks(markdown: string): { compiled: Block[]; fragments: number } {
  const lines = markdown.split('\n')
  const compiled: Block[] = []
  let fragments = 0
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue
    const end = lines.indexOf('```', i + 1)
    const code = lines.slice(i + 1, end).join('\n')
    if (/<!-- snippet: fragment\b/.test(lines[i - 1] ?? '')) fragments++
    else compiled.push({ line: i + 1, code })
    i = end
  }
  return { compiled, fragments }
}

/** The diagnostics of every block, as `README.md:line: TSnnnn message`. */
function typeCheck(list: Block[]): string[] {
  const files = new Map<string, string>()
  files.set(`${ROOT}.readme/prelude.d.ts`, PRELUDE)
  for (const b of list) files.set(`${ROOT}.readme/block-${b.line}.ts`, `${b.code}\nexport {}\n`)
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
    strict: true,
    skipLibCheck: true,
    esModuleInterop: true,
    noEmit: true,
    baseUrl: ROOT,
    paths: PATHS,
  }
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  const fileExists = host.fileExists.bind(host)
  host.readFile = (name) => files.get(name) ?? readFile(name)
  host.fileExists = (name) => files.has(name) || fileExists(name)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, language, ...rest) =>
    files.has(name) ? ts.createSourceFile(name, files.get(name)!, language) : getSourceFile(name, language, ...rest)
  const roots = [...files.keys()]
  const program = ts.createProgram(roots, options, host)
  const own = new Set(files.keys())
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && own.has(d.file.fileName))
    .map((d) => {
      const block = /block-(\d+)\.ts$/.exec(d.file!.fileName)
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0)
      const where = block ? `README.md:${Number(block[1]) + 1 + line}` : 'prelude'
      return `${where}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`
    })
}

/** The README's sync loop, run as written: its `syncOnce`, and its saved token to set and read. */
function readmeSyncLoop(fetch: (url: string) => Promise<Response>) {
  const block = blocks(README).compiled.find((b) => b.code.includes('async function syncOnce('))
  if (!block) throw new Error('README.md has no sync loop (async function syncOnce)')
  const js = ts.transpileModule(block.code, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText
  // The README's own code, run as a reader would paste it.
  return new Function('fetch', `${js}\nreturn { syncOnce, token: (t) => (t === undefined ? token : (token = t)) }`)(fetch) as {
    syncOnce(base: string, mirror: Map<number, unknown>): Promise<void>
    token(t?: string): string
  }
}

describe('README.md snippets', () => {
  it('the sync loop mirrors the events, starts over on a 400 naming sync_token and throws a clear error otherwise', async () => {
    const app = await makeApp(createMemoryStorage)
    onTestFinished(() => app.close())
    const first = await app.seed({ title: 'Mirrored' })
    let failWith: number | null = null
    const loop = readmeSyncLoop((url) =>
      failWith
        ? Promise.resolve(Response.json({ code: 'boom', message: 'down' }, { status: failWith }))
        : app.router.fetch(new Request(url)),
    )
    const mirror = new Map<number, unknown>()
    await loop.syncOnce(API, mirror)
    expect([...mirror.keys()]).toEqual([first.id])
    const saved = loop.token()
    expect(saved).not.toBe('*')
    // A token of another database (or a garbled one) is the documented 400: start over, no throw.
    loop.token('not-a-token')
    mirror.set(999, 'stale')
    await loop.syncOnce(API, mirror)
    expect([...mirror.keys()]).toEqual([first.id])
    expect(loop.token()).not.toBe('not-a-token')
    failWith = 500
    await expect(loop.syncOnce(API, mirror)).rejects.toThrow('sync failed: 500 boom: down')
  })

  it('every ```ts block compiles under strict against the package types', () => {
    const { compiled, fragments } = blocks(README)
    // The README has snippets, and marking them fragments is the exception.
    expect(compiled.length).toBeGreaterThanOrEqual(6)
    expect(fragments).toBeLessThanOrEqual(1)
    // One program for all (type-checking src/ is the slow part), with one block that must fail:
    // the check is seen to report an error, with its README line.
    const broken = {
      line: 100_000,
      code: "import { createCalendarRouter } from 'calendar-events-router'\nconst n: number = createCalendarRouter",
    }
    const errors = typeCheck([...compiled, broken])
    expect(errors.filter((e) => !e.startsWith('README.md:100002:'))).toEqual([])
    expect(errors).toEqual([expect.stringMatching(/^README\.md:100002: TS2322 /)])
  }, 120_000)
})
