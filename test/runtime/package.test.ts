/**
 * The package as published: `npm pack`, publint, arethetypeswrong (node16), and a consumer
 * project that installs the tarball and imports every subpath in ESM, CJS and TypeScript, and
 * an Express app on SQLite built from it (issue 37's path to If-Match on an imported event).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toolBinary } from '../support/tools.js'
import { BIN, ROOT, run } from './smoke.js'

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>
  version: string
  typesVersions: Record<string, Record<string, string[]>>
}
const SUBPATHS = Object.keys(pkg.exports).filter((s) => s !== './package.json')
/** The consumers' module variable for each subpath. */
const alias = (subpath: string) => {
  const name = subpath === '.' ? 'root' : subpath.slice(2).replace(/\W/g, '_')
  // `import` is a reserved word: no variable can have it as its name.
  return name === 'import' ? 'importer' : name
}
/** A named export each subpath must have (a function). */
const EXPECTED: Record<string, string[]> = {
  '.': ['createCalendarRouter', 'ApiError', 'PayloadTooLargeError'],
  './storage': ['SlugConflictError', 'StorageUnavailableError', 'JournalPositionError'],
  './storage/memory': ['createMemoryStorage'],
  './storage/sql': ['createSqlStorage', 'sqliteDriver', 'pgDriver', 'openSqliteFile', 'openPostgres'],
  './testing': ['storageContract', 'httpConformance'],
  './node': ['toNodeHandler'],
  './express': ['calendarMiddleware'],
  './bun': ['serveCalendar', 'toBunHandler'],
  './import': ['importCalendar', 'runImports'],
}
const specifier = (subpath: string) => `calendar-events-router${subpath.slice(1)}`

const dir = mkdtempSync(join(tmpdir(), 'calendar-consumer-'))
let tarball = ''

beforeAll(async () => {
  // dist/ is built by the globalSetup and in use by the other runtime tests: no prepack rebuild here.
  const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir, '--no-audit', '--no-fund'])
  expect(packed.code, packed.stderr).toBe(0)
  tarball = join(dir, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }))
  // The registry (or npm's cache, which `npm ci` filled) provides the package's dependencies.
  const installed = await run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, timeout: 120_000 })
  expect(installed.code, installed.stderr).toBe(0)
}, 180_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the published package', () => {
  it('lists every public entry in exports, types first, ESM and CJS', () => {
    expect([...SUBPATHS].sort()).toEqual(Object.keys(EXPECTED).sort())
    for (const subpath of SUBPATHS) {
      const entry = pkg.exports[subpath] as Record<'import' | 'require', Record<string, string>>
      expect(Object.keys(entry)).toEqual(['import', 'require'])
      expect(Object.keys(entry.import)).toEqual(['types', 'default'])
      expect(Object.keys(entry.require)).toEqual(['types', 'default'])
      expect(entry.require.types).toMatch(/\.d\.cts$/)
      if (subpath !== '.') expect(pkg.typesVersions['*']?.[subpath.slice(2)]).toEqual([entry.require.types])
    }
  })

  it('passes publint (strict)', async () => {
    const result = await run(BIN('publint'), ['--strict'])
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(result.stdout).toContain('All good')
  })

  it('passes arethetypeswrong for node10 (typesVersions), node16 (ESM and CJS) and bundlers', async () => {
    // The default profile includes node10: TypeScript's `moduleResolution: node`, still the
    // default for `module: commonjs`, which ignores `exports` and needs `typesVersions`.
    // Pinned and installed on demand (test/support/tools.ts): 33 MB npm ci no longer downloads.
    const result = await run(await toolBinary('@arethetypeswrong/cli'), [tarball, '--format', 'ascii'])
    expect(result.code, result.stdout + result.stderr).toBe(0)
  }, 180_000)

  it('keeps node: modules out of the root entry (it must load on Bun, Deno and workers)', () => {
    const seen = new Set<string>()
    const builtins: string[] = []
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      const code = readFileSync(file, 'utf8')
      for (const [, spec] of code.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
        if (spec!.startsWith('.')) visit(resolve(dirname(file), spec!))
        else if (spec!.startsWith('node:') || /^(fs|path|os|http|crypto|stream|buffer|util|events|url)(\/|$)/.test(spec!))
          builtins.push(`${file}: ${spec}`)
      }
    }
    visit(join(ROOT, 'dist/index.js'))
    expect(seen.size).toBeGreaterThan(1)
    expect(builtins).toEqual([])
  })

  it('imports every subpath from an ESM consumer', async () => {
    const lines = SUBPATHS.map((s) => `import * as ${alias(s)} from '${specifier(s)}'`)
    lines.push(`const found = { ${SUBPATHS.map((s) => `'${s}': Object.keys(${alias(s)})`).join(', ')} }`)
    lines.push(`const calendar = root.createCalendarRouter(storage_memory.createMemoryStorage())`)
    lines.push(`const res = await calendar.fetch(new Request('http://x/wp-json/calendar/events/v1/events'))`)
    lines.push(`console.log(JSON.stringify({ found, status: res.status }))`)
    writeFileSync(join(dir, 'esm.mjs'), lines.join('\n'))
    const result = await run(process.execPath, ['esm.mjs'], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    const { found, status } = JSON.parse(result.stdout) as { found: Record<string, string[]>; status: number }
    for (const [subpath, names] of Object.entries(EXPECTED)) expect(found[subpath]).toEqual(expect.arrayContaining(names))
    expect(status).toBe(200)
  })

  it('serves an Express app on SQLite where an administrator edits an imported event with If-Match (issue 37 finding 1)', async () => {
    // The issue's Express app with the tarball: an event the importer wrote, the administrator's
    // ETag (which covers import_source) sent back with the edit; it answered 412. The app's own
    // dependencies, express and better-sqlite3, are this checkout's.
    for (const dep of ['express', 'better-sqlite3'])
      if (!existsSync(join(dir, 'node_modules', dep))) symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir')
    const ics = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//EN', 'BEGIN:VEVENT', 'UID:tarball-1@example.org']
      .concat(['DTSTART:20270315T180000Z', 'DTEND:20270315T200000Z', 'SUMMARY:Imported', 'END:VEVENT', 'END:VCALENDAR', ''])
      .join('\r\n')
    const app = [
      `import express from 'express'`,
      `import { createCalendarRouter } from 'calendar-events-router'`,
      `import { calendarMiddleware } from 'calendar-events-router/express'`,
      `import { createSqlStorage, openSqliteFile } from 'calendar-events-router/storage/sql'`,
      `import { importCalendar } from 'calendar-events-router/import'`,
      `const storage = createSqlStorage({ driver: await openSqliteFile(process.argv[2]) })`,
      `const calendar = createCalendarRouter(storage, {`,
      `  authenticate: (r) => (r.headers.get('authorization') === 'Bearer admin' ? { id: 1, role: 'administrator' } : null),`,
      `})`,
      `await importCalendar(calendar, { format: 'ics', text: ${JSON.stringify(ics)} })`,
      `const app = express()`,
      `app.use(express.json())`,
      `app.use(calendarMiddleware(calendar))`,
      `const server = app.listen(0, '127.0.0.1')`,
      `await new Promise((resolve) => server.once('listening', resolve))`,
      `const root = 'http://127.0.0.1:' + server.address().port + '/wp-json/calendar/events/v1'`,
      `const headers = { authorization: 'Bearer admin', 'content-type': 'application/json' }`,
      `const [{ id }] = (await (await fetch(root + '/events?start_date=2027-03-01&end_date=2027-03-31')).json()).events`,
      `const read = await fetch(root + '/events/' + id, { headers })`,
      `const source = (await read.json()).import_source?.source_id`,
      `const edit = await fetch(root + '/events/' + id, { method: 'POST', headers: { ...headers, 'if-match': read.headers.get('etag') }, body: '{"title":"Edited"}' })`,
      `const trash = await fetch(root + '/events/' + id, { method: 'DELETE', headers: { ...headers, 'if-match': edit.headers.get('etag') } })`,
      `console.log(JSON.stringify({ source, edit: edit.status, trash: trash.status }))`,
      `server.close()`,
      `await storage.close?.()`,
    ]
    writeFileSync(join(dir, 'express-app.mjs'), app.join('\n'))
    const result = await run(process.execPath, ['express-app.mjs', join(dir, 'express-app.db')], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ source: 'tarball-1@example.org', edit: 200, trash: 200 })
  })

  it('requires every subpath from a CJS consumer', async () => {
    const lines = [`const found = {}`]
    for (const s of SUBPATHS) lines.push(`found['${s}'] = Object.keys(require('${specifier(s)}'))`)
    lines.push(`const { createCalendarRouter } = require('calendar-events-router')`)
    lines.push(`const { createMemoryStorage } = require('calendar-events-router/storage/memory')`)
    lines.push(`createCalendarRouter(createMemoryStorage()).fetch(new Request('http://x/wp-json/calendar/events/v1/events'))`)
    lines.push(`  .then((res) => console.log(JSON.stringify({ found, status: res.status })))`)
    writeFileSync(join(dir, 'cjs.cjs'), lines.join('\n'))
    const result = await run(process.execPath, ['cjs.cjs'], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    const { found, status } = JSON.parse(result.stdout) as { found: Record<string, string[]>; status: number }
    for (const [subpath, names] of Object.entries(EXPECTED)) expect(found[subpath]).toEqual(expect.arrayContaining(names))
    expect(status).toBe(200)
  })

  it('type-checks every subpath from TypeScript consumers (node16, ESM and CJS)', async () => {
    const body = (from: (name: string, spec: string) => string) =>
      [
        ...SUBPATHS.map((s) => from(alias(s), specifier(s))),
        `const calendar = root.createCalendarRouter(storage_memory.createMemoryStorage(), { prefix: '/api' })`,
        `const handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void = node.toNodeHandler(calendar)`,
        `const [api, errors] = express.calendarMiddleware(calendar)`,
        `const fetchHandler: (request: Request) => Promise<Response> = bun.toBunHandler(calendar)`,
        `const sql: typeof storage_sql.createSqlStorage = storage_sql.createSqlStorage`,
        `const contract: typeof testing.storageContract = testing.storageContract`,
        // The representation types resolve (through valibot) to real types, not `any`.
        `const venues: root.VenueList['venues'] = []`,
        `// @ts-expect-error an event id is a number`,
        `const wrongId: root.Event['id'] = 'twelve'`,
        `export { handler, api, errors, fetchHandler, sql, contract, venues, wrongId }`,
      ].join('\n')
    const esm = (name: string, spec: string) => `import * as ${name} from '${spec}'`
    const cjs = (name: string, spec: string) => `import ${name} = require('${spec}')`
    writeFileSync(join(dir, 'consumer.mts'), body(esm))
    writeFileSync(join(dir, 'consumer.cts'), body(cjs))
    const result = await run(
      BIN('tsc'),
      [
        '--noEmit',
        '--strict',
        '--module',
        'node16',
        '--moduleResolution',
        'node16',
        '--target',
        'es2022',
        '--lib',
        'es2023,dom',
        '--types',
        'node',
        '--typeRoots',
        join(ROOT, 'node_modules/@types'),
        'consumer.mts',
        'consumer.cts',
      ],
      { cwd: dir },
    )
    expect(result.code, result.stdout + result.stderr).toBe(0)
  })

  it('type-checks every subpath under moduleResolution node (node10, the default for module commonjs)', async () => {
    const lines = [
      ...SUBPATHS.map((s) => `import ${alias(s)} = require('${specifier(s)}')`),
      `const calendar = root.createCalendarRouter(storage_memory.createMemoryStorage())`,
      `const fetchHandler: (request: Request) => Promise<Response> = bun.toBunHandler(calendar)`,
      `const [api] = express.calendarMiddleware(calendar)`,
      `export = { calendar, fetchHandler, api, node: node.toNodeHandler, sql: storage_sql.createSqlStorage, contract: testing.storageContract }`,
    ]
    writeFileSync(join(dir, 'consumer-node10.ts'), lines.join('\n'))
    const result = await run(
      BIN('tsc'),
      [
        '--noEmit',
        '--strict',
        '--module',
        'commonjs',
        '--moduleResolution',
        'node10',
        '--target',
        'es2022',
        '--lib',
        'es2023,dom',
        '--types',
        'node',
        '--typeRoots',
        join(ROOT, 'node_modules/@types'),
        'consumer-node10.ts',
      ],
      { cwd: dir },
    )
    expect(result.code, result.stdout + result.stderr).toBe(0)
  })
})
