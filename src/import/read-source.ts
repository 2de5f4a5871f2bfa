/**
 * A source's text: a file, or a URL fetched with the validators of its last fetch (ETag,
 * Last-Modified) so an unchanged feed costs one 304. The validators are stored only once the
 * import that used the text finished (`commit`), so a run that failed halfway fetches in full
 * next time.
 */
import type { ImportLinkStore } from '../storage/import-links.js'
import { toUtcString } from '../time/format.js'

export type SourceText = { notModified: true } | { notModified: false; text: string; commit(): Promise<void> }

export interface LoadOptions {
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch
  /** Extra request headers (Authorization...). */
  headers?: Record<string, string>
  /** Abort a URL that has not answered in this many ms (default 60,000). */
  timeoutMs?: number
}

export const isUrl = (location: string) => /^https?:\/\//i.test(location)

/**
 * @example
 * const got = await loadSource('https://example.org/cal.ics', 'ics:https://example.org/cal.ics', storage.importLinks!)
 * if (!got.notModified) console.log(got.text.length)
 */
export async function loadSource(location: string, source: string, links: ImportLinkStore, o: LoadOptions = {}): Promise<SourceText> {
  if (!isUrl(location)) {
    const { readFile } = await import('node:fs/promises')
    let text: string
    try {
      text = await readFile(location, 'utf8')
    } catch (e) {
      throw new Error(`cannot read ${location}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
    }
    return { notModified: false, text, commit: async () => {} }
  }
  const state = await links.sourceState(source)
  const headers: Record<string, string> = { accept: 'text/calendar, text/csv, application/json;q=0.9, */*;q=0.5', ...o.headers }
  if (state?.etag) headers['if-none-match'] = state.etag
  if (state?.lastModified) headers['if-modified-since'] = state.lastModified
  let response: Response
  try {
    response = await (o.fetch ?? fetch)(location, { headers, redirect: 'follow', signal: AbortSignal.timeout(o.timeoutMs ?? 60_000) })
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause
    throw new Error(`${location} is unreachable: ${cause?.code ?? cause?.message ?? (e as Error).message}`)
  }
  if (response.status === 304) return { notModified: true }
  if (!response.ok) throw new Error(`${location} answered HTTP ${response.status}`)
  const text = await response.text()
  const etag = response.headers.get('etag')
  const lastModified = response.headers.get('last-modified')
  return {
    notModified: false,
    text,
    commit: () => links.putSourceState({ source, etag, lastModified, checkedAt: toUtcString(new Date()) }),
  }
}
