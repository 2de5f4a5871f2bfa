/**
 * The storage the router works on: observed when something must hear about commits (the
 * response cache drops what a write touched; `onChange` gets each change), else the backend itself.
 */
import type { ReadCache } from '../cache.js'
import type { ResolvedOptions } from '../options.js'
import type { Tags } from '../storage/dependencies.js'
import { observeStorage, type Change } from '../storage/observed.js'
import type { Storage } from '../storage/types.js'

export function observedStorage(backend: Storage, options: ResolvedOptions, cache: ReadCache | null): Storage {
  if (!cache && !options.onChange) return backend
  const onCommit = (changes: Change[], tags: Tags) => {
    // Untagged writes (none are known) drop everything: never serve stale.
    cache?.invalidate(tags.size ? tags : undefined)
    if (!options.onChange) return
    for (const change of changes) {
      // A failing hook must not turn a committed write into an error for the caller.
      Promise.resolve()
        .then(() => options.onChange?.(change))
        .catch((error) => options.onError?.(error, { method: 'HOOK', url: '', headers: { get: () => null } }))
    }
  }
  return observeStorage(backend, onCommit, { tags: cache !== null })
}
