/**
 * The router's own storage hooks: observation when something must hear about commits (the
 * response cache drops what a write touched; `onChange` gets each change), and the wake-up of
 * the webhook runner after every commit.
 */
import type { ReadCache } from '../cache/response-cache.js'
import type { Coherence } from '../cache/coherence.js'
import type { ResolvedOptions } from '../options.js'
import { searchesChanged, type Stale } from '../cache/dependencies.js'
import type { JournalEntry } from '../storage/journal.js'
import { changeOf, observing } from '../cache/observed.js'
import type { StorageHook, TransactionHook } from '../storage/pipeline.js'

export function routerHooks(
  options: ResolvedOptions,
  cache: ReadCache | null,
  coherence: Coherence | null,
  /** Told after every commit that changed something (the webhook runner wakes up). */
  afterCommit?: () => void,
): StorageHook[] {
  const hooks: StorageHook[] = []
  if (cache || options.onChange) hooks.push(observing(commitReport(options, cache, coherence), { tags: cache !== null }))
  if (afterCommit) {
    // A thin hook: it asks the backend for nothing more than the commit itself.
    const scope: TransactionHook = { after: afterCommit }
    hooks.push({ transaction: () => scope })
  }
  return hooks
}

function commitReport(options: ResolvedOptions, cache: ReadCache | null, coherence: Coherence | null) {
  return (entries: JournalEntry[], stale: Stale) => {
    // Dropped here, precisely: the journal need not bring them back to the cache.
    coherence?.own(entries)
    // Untagged writes (none are known) drop everything: never serve stale.
    // An edit of an event's text drops the searches it moves the event in or out of.
    cache?.invalidate(stale.tags.size ? [...stale.tags, ...searchesChanged(stale, cache.searchTags)] : undefined)
    if (!options.onChange) return
    for (const change of entries.map(changeOf)) {
      // A failing hook must not turn a committed write into an error for the caller.
      Promise.resolve()
        .then(() => options.onChange?.(change))
        .catch((error) => options.onError?.(error, { method: 'HOOK', url: '', headers: { get: () => null } }))
    }
  }
}
