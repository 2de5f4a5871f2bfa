/**
 * Issue 39's corpus target: every file of test/fixtures/import/corpus/ imported into an empty
 * memory store, each in a process of its own so a file that hangs is cut at LIMIT_MS and reported
 * as such rather than stopping the bench. Per file: the import's wall time, records created,
 * records failed, warnings, or the sentence the source failed with. The totals at the end
 * (files fully imported, records failed, warnings) are the figures of docs/benchmarks.md.
 *
 * `node --import tsx bench/import-corpus.bench.ts [ROOT]` (`npm run bench:import-corpus`): ROOT is
 * the checkout whose importer is measured (default: this one), so the same corpus can be run
 * against an older commit checked out elsewhere (`git worktree add /tmp/before <commit>`).
 */
import { execFile } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const CORPUS = resolve(here, '../test/fixtures/import/corpus')
const LIMIT_MS = 15_000

interface Row {
  file: string
  ms?: number
  created?: number
  failed?: number
  warnings?: number
  error?: string
}

/** In the child: one file into an empty memory store with ROOT's importer; one JSON line out. */
async function importOne(root: string, file: string): Promise<void> {
  const load = (p: string) => import(pathToFileURL(join(root, p)).href)
  const { importCalendar } = await load('src/import/index.ts')
  const { createMemoryStorage } = await load('src/storage/memory.ts')
  const { createCalendarRouter } = await load('src/router.ts')
  const router = createCalendarRouter(createMemoryStorage(), {})
  const started = performance.now()
  const row: Row = { file }
  try {
    const s = await importCalendar(router, { format: 'ics', location: join(CORPUS, file) })
    Object.assign(row, { created: s.created, failed: s.failed.length, warnings: s.warnings.length })
  } catch (e) {
    row.error = e instanceof Error ? e.message : String(e)
  }
  row.ms = Math.round(performance.now() - started)
  process.stdout.write(`${JSON.stringify(row)}\n`)
  process.exit(0)
}

/** In the parent: a child per file, cut at LIMIT_MS. */
function runChild(root: string, file: string): Promise<Row> {
  return new Promise((done) => {
    const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--one', root, file]
    execFile(process.execPath, args, { timeout: LIMIT_MS, cwd: root, maxBuffer: 1 << 20 }, (err, stdout) => {
      const line = stdout.trim().split('\n').at(-1) ?? ''
      if (line.startsWith('{')) return done(JSON.parse(line) as Row)
      const killed = err && (err as { killed?: boolean }).killed
      done({ file, error: killed ? `did not finish within ${LIMIT_MS} ms (cut)` : `crashed: ${String(err?.message ?? 'no output')}` })
    })
  })
}

async function main(): Promise<void> {
  const root = resolve(process.argv[2] ?? join(here, '..'))
  const files = readdirSync(CORPUS).sort()
  const rows: Row[] = []
  console.log(`corpus: ${files.length} files, importer of ${root}, each cut at ${LIMIT_MS} ms`)
  console.log('file                               ms  created failed warnings  error')
  for (const file of files) {
    const r = await runChild(root, file)
    rows.push(r)
    const num = (n: number | undefined, w: number) => String(n ?? '-').padStart(w)
    console.log(`${file.padEnd(32)}${num(r.ms, 6)} ${num(r.created, 8)} ${num(r.failed, 6)} ${num(r.warnings, 9)}  ${r.error ?? ''}`)
  }
  const full = rows.filter((r) => !r.error && r.failed === 0).length
  const sum = (k: 'failed' | 'warnings' | 'created') => rows.reduce((n, r) => n + (r[k] ?? 0), 0)
  const failedSources = rows.filter((r) => r.error).length
  console.log(
    `fully imported ${full}/${files.length}, sources failed ${failedSources}, records created ${sum('created')}, ` +
      `records failed ${sum('failed')}, warnings ${sum('warnings')}, slowest ${Math.max(...rows.map((r) => r.ms ?? LIMIT_MS))} ms`,
  )
}

if (process.argv[2] === '--one') await importOne(process.argv[3]!, process.argv[4]!)
else await main()
