/**
 * The storage the router works on: observed when something must hear about commits (the
 * response cache drops what a write touched; `onChange` gets each change), else the backend itself.
 */
import type { ReadCache } from '../cache.js'
import type { Coherence } from './coherence.js'
import type { ResolvedOptions } from '../options.js'
import { searchesChanged, type Tags } from '../storage/dependencies.js'
import type { JournalEntry } from '../storage/journal.js'
import { changeOf, observeStorage } from '../storage/observed.js'
import { overlay } from '../storage/overlay.js'
import type { Storage, StorageTx, TransactionOptions } from '../storage/types.js'

export function observedStorage(
  backend: Storage,
  options: ResolvedOptions,
  cache: ReadCache | null,
  coherence: Coherence | null,
  /** Told after every commit that changed something (the webhook runner wakes up). */
  afterCommit?: () => void,
): Storage {
  const observed = observing(backend, options, cache, coherence)
  if (!afterCommit) return observed
  // A thin wrap: it asks the backend for nothing more than the commit itself.
  return overlay(observed, {
    async transaction<T>(fn: (tx: StorageTx) => Promise<T>, o?: TransactionOptions): Promise<T> {
      const result = await observed.transaction(fn, o)
      afterCommit()
      return result
    },
  })
}

function observing(backend: Storage, options: ResolvedOptions, cache: ReadCache | null, coherence: Coherence | null): Storage {
  if (!cache && !options.onChange) return backend
  const onCommit = (entries: JournalEntry[], tags: Tags) => {
    // Dropped here, precisely: the journal need not bring them back to the cache.
    coherence?.own(entries)
    // Untagged writes (none are known) drop everything: never serve stale.
    // An edit of an event's text drops the searches it moves the event in or out of.
    cache?.invalidate(tags.size ? [...tags, ...searchesChanged(tags, cache.searchTags)] : undefined)
    if (!options.onChange) return
    for (const change of entries.map(changeOf)) {
      // A failing hook must not turn a committed write into an error for the caller.
      Promise.resolve()
        .then(() => options.onChange?.(change))
        .catch((error) => options.onError?.(error, { method: 'HOOK', url: '', headers: { get: () => null } }))
    }
  }
  return observeStorage(backend, onCommit, { tags: cache !== null })
}
