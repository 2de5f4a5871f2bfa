/**
 * @module calendar-events-router/import: bring existing calendars in (docs/importing.md). One
 * call per source; every record is written through the router as the importing caller, and a
 * second run updates what the first created.
 */
import { resolve as resolvePath } from 'node:path'
import { HOST_REQUEST } from '../host-request.js'
import type { ImportLinkStore } from '../storage/import-links.js'
import type { CsvOptions } from '../readers/csv.js'
import type { IcsOptions } from '../readers/ics.js'
import { isUrl, loadSource, type LoadOptions, type SourceText } from './read-source.js'
import { readTec, type TecOptions } from './tec.js'
import { isRouter, runImport, type ImportTarget, type RunOptions } from './run.js'
import { BudgetError, resolveBudget, type ImportBudget } from './budget.js'
import type { ParseJob } from './parse-worker.js'
import { parseInWorker } from './sandbox.js'
import type { ImportSummary, SourceRead } from '../readers/types.js'

export type { Authority, ImportFailure, ImportSummary, SourceRecord } from '../readers/types.js'
export type { ImportTarget, RunOptions } from './run.js'
export { readIcs, type IcsOptions } from '../readers/ics.js'
export { readCsv, TEC_CSV_COLUMNS, type CsvOptions, type CsvField } from '../readers/csv.js'
export { readTec, type TecOptions } from './tec.js'
export { BudgetError, DEFAULT_BUDGET, type ImportBudget } from './budget.js'

export type ImportFormat = 'ics' | 'csv' | 'tec'

export interface ImportSource extends LoadOptions {
  format: ImportFormat
  /** A file path or an http(s) URL (for `tec`: the site's root URL, or its API root `.../wp-json/tribe/events/v1`). */
  location?: string
  /** The document itself, instead of `location` (ics, csv). */
  text?: string
  /**
   * What this source is called in the import links; re-runs must use the same name. Default
   * `{format}:{location}`. Name it yourself when the same calendar moves to another URL.
   */
  name?: string
  /** iCalendar: how far expanded rules reach. */
  ics?: IcsOptions
  /** CSV: a column mapping, a key column, the separator. */
  csv?: CsvOptions
  /** TEC site: `auth` (`name:application-password`, HTTP Basic), events per page. */
  tec?: Pick<TecOptions, 'auth' | 'perPage'>
  /** TEC site: the same as `tec.auth`. */
  auth?: string
  /** What reading this source may spend (time, records, bytes, pages, memory): see ImportBudget. */
  budget?: ImportBudget
}

export type ImportOptions = RunOptions

/** A location as one key whatever its spelling: a URL normalised (`HTTP://Host:80/a/../b` → `http://host/b`), a path made absolute. */
export function canonicalLocation(location: string): string {
  if (!isUrl(location)) return resolvePath(location)
  try {
    const url = new URL(location)
    // A site's root is written with or without its slash: without, as the first version named it.
    return url.pathname === '/' && !url.search && !url.hash ? url.origin : url.href
  } catch {
    // Not a URL after all (isUrl looks at the scheme only): the location is its own key, as written.
    return location
  }
}

export const sourceName = (s: ImportSource) => s.name ?? `${s.format}:${s.location ? canonicalLocation(s.location) : 'text'}`

/**
 * The name a source's links are under: its canonical name, or the name an earlier version gave
 * it (the location as written) when only that one has links, so an upgrade imports nothing twice.
 */
async function linkedName(target: ImportTarget, source: ImportSource): Promise<string> {
  const name = sourceName(source)
  const legacy = `${source.format}:${source.location}`
  if (source.name || !source.location || legacy === name) return name
  const links = (isRouter(target) ? target[HOST_REQUEST]?.storage : target.storage)?.importLinks
  if (!links || (await links.links(name)).length) return name
  return (await links.links(legacy)).length ? legacy : name
}

/** Why an iCalendar file gave no record: it holds no VEVENT, only tasks, journal entries... */
function nothingIn(text: string): string[] {
  const kinds = new Set([...text.matchAll(/^BEGIN:(V[A-Z]+)/gim)].map((m) => m[1]!.toUpperCase()))
  for (const k of ['VCALENDAR', 'VTIMEZONE', 'VALARM', 'VEVENT']) kinds.delete(k)
  if (!/^BEGIN:VCALENDAR/im.test(text)) return []
  return [`the file holds no VEVENT${kinds.size ? ` (only ${[...kinds].join(', ')})` : ''}: nothing to import`]
}

/** A file source (ics, csv): downloaded or read within the budget, then parsed in a worker (sandbox.ts). */
function fromText(
  load: (links: ImportLinkStore, deadline: number) => Promise<SourceText>,
  job: (text: string) => Omit<ParseJob, 'skip'>,
  budget: Required<ImportBudget>,
) {
  return async (links: ImportLinkStore): Promise<SourceRead> => {
    const deadline = Date.now() + budget.sourceMs
    const got = await load(links, deadline)
    if (got.notModified) return { records: [], complete: () => true, notModified: true }
    const records = await parseInWorker(job(got.text), budget, deadline)
    // A document that is nothing but one unreadable record is an unreadable source.
    if (records.length === 1 && records[0]!.sourceId === 'source' && records[0]!.error) throw new Error(records[0]!.error)
    const warnings = [...(got.warnings ?? []), ...(records.length ? [] : nothingIn(got.text))]
    return Object.assign({ records, complete: () => true, commit: got.commit, warnings: () => warnings }, { total: records.length })
  }
}

/**
 * Imports one source into the calendar and answers what happened to each record.
 *
 * @example
 * import { importCalendar } from 'calendar-events-router/import'
 * const summary = await importCalendar({ storage }, { format: 'ics', location: 'https://example.org/team.ics' }, { authority: 'keep-local', deleteMissing: true })
 * console.log(summary.created, summary.updated, summary.failed)
 */
export async function importCalendar(target: ImportTarget, source: ImportSource, options: ImportOptions = {}): Promise<ImportSummary> {
  const name = await linkedName(target, source)
  const budget = resolveBudget(source.budget)
  const load = async (links: ImportLinkStore, deadline: number) => {
    if (source.text !== undefined && Buffer.byteLength(source.text) > budget.bytes)
      throw new BudgetError(`the text is larger than ${budget.bytes} bytes (budget.bytes)`)
    if (source.text !== undefined) return Promise.resolve({ notModified: false as const, text: source.text, commit: async () => {} })
    if (!source.location) throw new Error('the source needs a location or a text')
    return loadSource(source.location, name, links, source, budget, deadline)
  }
  switch (source.format) {
    case 'ics': {
      const now = source.ics?.now?.getTime() ?? Date.now()
      const ics = { ...source.ics, maxOccurrences: source.ics?.maxOccurrences ?? budget.occurrences, now }
      return runImport(
        target,
        name,
        fromText(load, (text) => ({ format: 'ics', text, ics }), budget),
        options,
      )
    }
    case 'csv':
      return runImport(
        target,
        name,
        fromText(load, (text) => ({ format: 'csv', text, ...(source.csv ? { csv: source.csv } : {}) }), budget),
        options,
      )
    case 'tec': {
      if (!source.location) throw new TypeError('calendar-events-router: a tec source needs the site URL as its location')
      const location = source.location
      return runImport(
        target,
        name,
        (links) => readTec(location, name, links, { ...source, ...source.tec, dryRun: options.dryRun }),
        options,
      )
    }
    default:
      throw new TypeError(`calendar-events-router: unknown import format ${String(source.format)}`)
  }
}

/** The summary of a source that could not even start (an unknown format, a missing location). */
function notStarted(source: ImportSource, options: ImportOptions, error: unknown): ImportSummary {
  const reason = error instanceof Error ? error.message : String(error)
  return {
    source: sourceName(source),
    created: 0,
    updated: 0,
    unchanged: 0,
    skipped: 0,
    trashed: 0,
    failed: [{ ref: 'source', reason }],
    warnings: [],
    kinds: {},
    notModified: false,
    dryRun: options.dryRun === true,
  }
}

/**
 * The host task for scheduled re-imports (like `router.emptyTrash`): every source in turn, each
 * with its own options and budget, so none can hold up the others for longer than its budget;
 * a source that fails, even before it starts, is reported in its summary and the next goes on.
 * Call it from a scheduler.
 *
 * @example
 * const sources = [{ format: 'ics', location: 'https://example.org/team.ics', deleteMissing: true }] as const
 * setInterval(() => void runImports(router, [...sources]).then((all) => all.forEach((s) => console.log(s.source, s.created, s.updated, s.failed.length))), 3600_000).unref()
 */
export async function runImports(target: ImportTarget, sources: Array<ImportSource & ImportOptions>): Promise<ImportSummary[]> {
  const out: ImportSummary[] = []
  for (const s of sources) {
    try {
      out.push(await importCalendar(target, s, s))
    } catch (error) {
      out.push(notStarted(s, s, error))
    }
  }
  return out
}
