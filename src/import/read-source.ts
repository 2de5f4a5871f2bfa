/**
 * A source's text: a file, or a URL fetched with the validators of its last fetch (ETag,
 * Last-Modified) so an unchanged feed costs one 304. The validators are stored only once the
 * import that used the text finished (`commit`), so a run that failed halfway fetches in full
 * next time.
 */
import type { ImportLinkStore } from '../storage/import-links.js'
import { toUtcString } from '../time/format.js'
import { BudgetError, resolveBudget, type ImportBudget } from './budget.js'
import { guardedGet, originOf, type GetPolicy } from './http-get.js'

export type SourceText = { notModified: true } | { notModified: false; text: string; commit: () => Promise<void>; warnings?: string[] }

/**
 * A file's bytes as text: UTF-8 (a BOM is dropped by the parsers), else, when they are not valid
 * UTF-8, Latin-1 as Windows writes it, with a warning, rather than replacement characters.
 */
export function decodeText(bytes: Uint8Array): { text: string; warnings: string[] } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), warnings: [] }
  } catch (e) {
    // The decoder's own error says only "invalid data"; the warning says what was done instead.
    if (!(e instanceof TypeError)) throw e
    return { text: new TextDecoder('windows-1252').decode(bytes), warnings: ['the file is not UTF-8: read as Latin-1 (windows-1252)'] }
  }
}

export interface LoadOptions {
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch
  /** Extra request headers (Authorization...): sent to the configured origin only, never to an address the source redirects to. */
  headers?: Record<string, string>
  /** Abort a URL that has not answered in full in this many ms (default 60,000). */
  timeoutMs?: number
  /**
   * Let the addresses a source names or redirects to be private, loopback or link-local (the
   * address you configure is always trusted as given). Default false.
   */
  allowPrivateAddresses?: boolean
  /** Replaces name resolution for the address guard (tests). */
  resolveHost?: (host: string) => Promise<string[]>
}

export const isUrl = (location: string) => /^https?:\/\//i.test(location)

/** The rules every GET of a source follows (http-get.ts), for a source configured at `location`. */
export function policyFor(
  location: string,
  o: LoadOptions,
  budget: Required<ImportBudget>,
  accept: string,
  credentials: Record<string, string> = {},
  deadline?: GetPolicy['deadline'],
): GetPolicy {
  return {
    ...(deadline ? { deadline } : {}),
    ...(o.fetch ? { fetch: o.fetch } : {}),
    ...(o.resolveHost ? { resolve: o.resolveHost } : {}),
    origin: originOf(location),
    headers: { accept },
    credentials: { ...o.headers, ...credentials },
    timeoutMs: o.timeoutMs ?? 60_000,
    maxBytes: budget.bytes,
    redirects: budget.redirects,
    allowPrivate: o.allowPrivateAddresses === true,
  }
}

/**
 * @example
 * const got = await loadSource('https://example.org/cal.ics', 'ics:https://example.org/cal.ics', storage.importLinks!)
 * if (!got.notModified) console.log(got.text.length)
 */
export async function loadSource(
  location: string,
  source: string,
  links: ImportLinkStore,
  o: LoadOptions = {},
  budget: Required<ImportBudget> = resolveBudget(),
  deadline?: number,
): Promise<SourceText> {
  if (!isUrl(location)) {
    const { readFile, stat } = await import('node:fs/promises')
    let bytes: Uint8Array
    try {
      const size = (await stat(location)).size
      if (size > budget.bytes) throw new BudgetError(`${location} is larger than ${budget.bytes} bytes (budget.bytes)`)
      bytes = await readFile(location)
    } catch (e) {
      if (e instanceof BudgetError) throw e
      throw new Error(`cannot read ${location}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e })
    }
    return { notModified: false, ...decodeText(bytes), commit: async () => {} }
  }
  const state = await links.sourceState(source)
  const until =
    deadline === undefined
      ? undefined
      : { at: deadline, message: `reading the file took more than ${budget.sourceMs} ms (budget.sourceMs)` }
  const policy = policyFor(location, o, budget, 'text/calendar, text/csv, application/json;q=0.9, */*;q=0.5', {}, until)
  if (state?.etag) policy.headers['if-none-match'] = state.etag
  if (state?.lastModified) policy.headers['if-modified-since'] = state.lastModified
  const response = await guardedGet(location, policy)
  if (response.status === 304) return { notModified: true }
  if (response.status < 200 || response.status > 299) throw new Error(`${location} answered HTTP ${response.status}`)
  const etag = response.headers.get('etag')
  const lastModified = response.headers.get('last-modified')
  return {
    notModified: false,
    ...decodeText(response.bytes),
    commit: () => links.putSourceState({ source, etag, lastModified, checkedAt: toUtcString(new Date()) }),
  }
}
