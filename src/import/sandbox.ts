/**
 * Parsing a downloaded file off the event loop, within its budget (docs/importing.md, "Budgets").
 * A worker thread (node:worker_threads) parses it: the server keeps answering while it works, a
 * parser that never returns (ical.js on some rules and zones) is stopped by terminating the
 * worker, and `resourceLimits` caps its heap. Slices that yield would not do: one call into
 * ical.js can run for ever, and only a thread can be stopped from outside.
 *
 * An iCalendar event that takes longer than `eventMs` (or the worker's memory) fails alone: the
 * worker is ended and a new one goes on after that event. The whole file over `sourceMs`, or
 * more than `records` records, ends the source's run with a BudgetError.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { BudgetError, type ImportBudget } from './budget.js'
import type { ParseJob, ParseMessage } from './parse-worker.js'
import type { SourceRecord } from '../readers/types.js'

/** This module's file (tsup's `shims` give the CommonJS build an import.meta.url). */
function here(): string {
  return fileURLToPath(import.meta.url)
}

/**
 * The worker's file beside this code: dist/import/parse-worker.js (.cjs for the CommonJS build)
 * seen from dist/import/, from a shared chunk in dist/ or from dist/cli.js; parse-worker.ts in
 * the sources.
 */
function workerFile(): { file: string; typescript: boolean } {
  const self = here()
  const ext = self.endsWith('.ts') ? '.ts' : self.endsWith('.cjs') ? '.cjs' : '.js'
  for (const dir of ['.', 'import', '../import']) {
    const file = join(dirname(self), dir, `parse-worker${ext}`)
    if (existsSync(file)) return { file, typescript: ext === '.ts' }
  }
  throw new Error(`the importer's parse worker (parse-worker${ext}) is missing beside ${self}`)
}

/** Started from the TypeScript sources (the tests): tsx compiles the worker's modules. */
const BOOT_FROM_SOURCES = `const { workerData } = require('node:worker_threads')
import(workerData.loader).then((tsx) => { tsx.register(); return import(workerData.entry) })`

function startWorker(job: ParseJob, memoryMb: number): Worker {
  const { file, typescript } = workerFile()
  const resourceLimits = { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, memoryMb / 8)) }
  if (!typescript) return new Worker(file, { workerData: { job }, resourceLimits })
  const api = createRequire(file)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs')
  const workerData = { job, loader: pathToFileURL(api).href, entry: pathToFileURL(file).href }
  return new Worker(BOOT_FROM_SOURCES, { eval: true, workerData, resourceLimits })
}

type Stop = { kind: 'done'; records?: SourceRecord[] } | { kind: 'stalled'; reason: string }

/** One parse job across the workers it takes: the records of each event read so far. */
class ParseRun {
  refs: string[] | null = null
  readonly byEvent = new Map<number, SourceRecord[]>()
  private count = 0

  constructor(
    readonly job: Omit<ParseJob, 'skip'>,
    readonly b: Required<ImportBudget>,
    readonly deadline: number,
  ) {}

  add(index: number, records: SourceRecord[]) {
    this.count += records.length
    if (this.count > this.b.records) throw new BudgetError(`the file gives more than ${this.b.records} records (budget.records)`)
    this.byEvent.set(index, records)
  }

  /** The first event no worker has finished: the one a stopped worker was reading. */
  current(): number {
    let i = 0
    while (this.byEvent.has(i)) i++
    return i
  }

  records(): SourceRecord[] {
    return (this.refs ?? []).flatMap((_, i) => this.byEvent.get(i) ?? [])
  }

  /** Runs one worker until it finishes, stops on an event, or the source is over budget. */
  attempt(): Promise<Stop> {
    return new Promise((resolve, reject) => {
      const worker = startWorker({ ...this.job, skip: [...this.byEvent.keys()] }, this.b.memoryMb)
      let settled = false
      let eventTimer: ReturnType<typeof setTimeout> | undefined
      const finish = (then: () => void) => {
        if (settled) return
        settled = true
        clearTimeout(eventTimer)
        clearTimeout(sourceTimer)
        void worker.terminate()
        then()
      }
      const overSource = () => new BudgetError(`reading the file took more than ${this.b.sourceMs} ms (budget.sourceMs)`)
      const sourceTimer = setTimeout(() => finish(() => reject(overSource())), Math.max(0, this.deadline - Date.now()))
      const arm = () => {
        clearTimeout(eventTimer)
        const reason = `reading it took more than ${this.b.eventMs} ms (budget.eventMs): not imported`
        eventTimer = setTimeout(() => finish(() => resolve({ kind: 'stalled', reason })), this.b.eventMs)
      }
      worker.on('message', (m: ParseMessage) => {
        try {
          if (m.type === 'ready') this.refs ??= m.refs
          else if (m.type === 'event') this.add(m.index, m.records)
          else if (m.type === 'done') return finish(() => resolve({ kind: 'done', ...(m.records ? { records: m.records } : {}) }))
          else return finish(() => reject(new Error(m.message)))
          arm()
        } catch (e) {
          finish(() => reject(e instanceof Error ? e : new Error(String(e))))
        }
      })
      worker.on('error', (e: Error & { code?: string }) => {
        const memory = e.code === 'ERR_WORKER_OUT_OF_MEMORY'
        if (memory && this.refs)
          return finish(() =>
            resolve({ kind: 'stalled', reason: `reading it needed more than ${this.b.memoryMb} MB (budget.memoryMb): not imported` }),
          )
        if (memory)
          return finish(() => reject(new BudgetError(`parsing the file needed more than ${this.b.memoryMb} MB (budget.memoryMb)`)))
        finish(() => reject(e))
      })
      worker.on('exit', (code) => finish(() => reject(new Error(`the parse worker stopped early (exit code ${code})`))))
    })
  }
}

/**
 * The records of a file, parsed in workers within `budget`. Throws a BudgetError when the whole
 * file is over its budget, the parser's own error when the file is unreadable as a whole.
 *
 * @example
 * const records = await parseInWorker({ format: 'ics', text }, resolveBudget({ eventMs: 2000 }), Date.now() + 60_000)
 */
export async function parseInWorker(
  job: Omit<ParseJob, 'skip'>,
  budget: Required<ImportBudget>,
  deadline: number,
): Promise<SourceRecord[]> {
  const run = new ParseRun(job, budget, deadline)
  for (;;) {
    const stop = await run.attempt()
    if (stop.kind === 'done') return stop.records ?? run.records()
    const i = run.current()
    const ref = run.refs?.[i] ?? `event ${i + 1}`
    run.add(i, [{ kind: 'event', sourceId: ref, ref, error: stop.reason }])
  }
}
