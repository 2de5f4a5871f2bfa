/**
 * What one import may spend (docs/importing.md, "Budgets"): no source can stall a run or grow
 * memory without bound. A source over its budget is reported with a sentence naming the budget
 * and the option that raises it, and its run ends; an event over its own budget fails alone.
 */

export interface ImportBudget {
  /** Reading and parsing the whole source, in ms (default 120,000). */
  sourceMs?: number
  /** Reading one iCalendar event, in ms (default 5,000): over it, that event fails alone. */
  eventMs?: number
  /** Single events one expanded rule may give (default 1,000); more are cut, with a warning. */
  occurrences?: number
  /** Records one source may give (default 100,000). */
  records?: number
  /** Bytes of one download (default 50 MiB): the download is aborted past it. */
  bytes?: number
  /** Pages of one TEC-site listing (default 1,000). */
  pages?: number
  /** Heap of the worker that parses a file, in MB (default 512). */
  memoryMb?: number
  /** Redirects followed for one request (default 5). */
  redirects?: number
}

export const DEFAULT_BUDGET: Required<ImportBudget> = {
  sourceMs: 120_000,
  eventMs: 5_000,
  occurrences: 1_000,
  records: 100_000,
  bytes: 50 * 1024 * 1024,
  pages: 1_000,
  memoryMb: 512,
  redirects: 5,
}

/** The budget with every limit filled in; a limit that is not a positive number keeps its default. */
export function resolveBudget(b: ImportBudget = {}): Required<ImportBudget> {
  const out = { ...DEFAULT_BUDGET }
  for (const key of Object.keys(DEFAULT_BUDGET) as Array<keyof ImportBudget>) {
    const v = b[key]
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) out[key] = v
  }
  return out
}

/** A source went over its budget: the run ends, nothing of it is written. */
export class BudgetError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(`over budget: ${message}`, options)
    this.name = 'BudgetError'
  }
}
