/**
 * Scheduled re-imports for the example server (docs/importing.md, "Scheduled re-imports"):
 * CALENDAR_IMPORT_SOURCES is a JSON array of import sources (`{ "format": "ics", "location":
 * "https://example.org/team.ics", "deleteMissing": true }`, each with its own options), and
 * CALENDAR_IMPORT_EVERY the minutes between runs (default 60). The first run starts right away;
 * a run still going when the next is due is not doubled. Each source has its budget (its
 * `budget` entry, else the defaults of docs/importing.md, "Budgets"), so no source holds a run
 * up for longer: one that blows it is reported in the log and the run goes on with the next
 * source. Each run's counts go to the log.
 */
import type { CalendarRouter } from '../../src/index.js'
import { runImports, type ImportOptions, type ImportSource } from '../../src/import/index.js'

export type ScheduledSource = ImportSource & ImportOptions

/** The sources CALENDAR_IMPORT_SOURCES names; a clear error for anything else (the server refuses to start). */
export function importSourcesFromEnv(value: string | undefined): ScheduledSource[] {
  if (!value?.trim()) return []
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch (e) {
    throw new Error(`CALENDAR_IMPORT_SOURCES is not JSON: ${(e as Error).message}`)
  }
  const list = Array.isArray(parsed) ? parsed : [parsed]
  return list.map((s, i) => {
    const source = s as Partial<ScheduledSource> | null
    if (!source || typeof source !== 'object' || !['ics', 'csv', 'tec'].includes(String(source.format)))
      throw new Error(`CALENDAR_IMPORT_SOURCES[${i}]: "format" must be ics, csv or tec`)
    if (typeof source.location !== 'string' || source.location === '')
      throw new Error(`CALENDAR_IMPORT_SOURCES[${i}]: "location" must be a file path or a URL`)
    // Options that only code can give are not taken from the environment.
    const { fetch: _fetch, onProgress: _progress, as: _as, resolveHost: _resolve, ...rest } = source
    return rest as ScheduledSource
  })
}

/**
 * @example
 * const imports = scheduleImports(router, process.env)
 * server.on('close', () => imports.stop())
 */
export function scheduleImports(
  router: CalendarRouter,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void = (line) => console.log(line),
): { stop(): void; sources: number; running(): Promise<void> } {
  const sources = importSourcesFromEnv(env.CALENDAR_IMPORT_SOURCES)
  if (!sources.length) return { stop() {}, sources: 0, running: () => Promise.resolve() }
  const minutes = Number(env.CALENDAR_IMPORT_EVERY ?? 60)
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error('CALENDAR_IMPORT_EVERY must be a number of minutes above 0')
  let current: Promise<void> | null = null
  const tick = () => {
    if (current) return
    current = runImports(router, sources)
      .then((summaries) => {
        for (const s of summaries)
          log(
            `import ${s.source}: ${s.notModified ? 'not modified' : `created ${s.created}, updated ${s.updated}, unchanged ${s.unchanged}, trashed ${s.trashed}, failed ${s.failed.length}`}` +
              s.failed.map((f) => `\n  failed ${f.ref}: ${f.reason}`).join(''),
          )
      })
      // runImports reports per source; anything else (a storage outage) waits for the next run.
      .catch((error: unknown) => log(`import run failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => (current = null))
  }
  tick()
  const timer = setInterval(tick, minutes * 60_000)
  timer.unref()
  return { stop: () => clearInterval(timer), sources: sources.length, running: () => current ?? Promise.resolve() }
}
