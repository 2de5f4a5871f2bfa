/** The caller, from the host's `authenticate` hook, checked before anything trusts it. */
import { isRole, type Principal } from '../auth/principal.js'
import type { RequestLike } from '../http/types.js'
import type { ResolvedOptions } from '../options.js'

/**
 * The caller of `request`. A hook that answers synchronously (a token looked up in a map) is
 * answered synchronously too: every request asks, and a promise costs each of them turns of the
 * microtask queue.
 *
 * @example
 * const found = callerOf(options, request)
 * const principal = found instanceof Promise ? await found : found
 */
export function callerOf(options: ResolvedOptions, request: RequestLike): Principal | null | Promise<Principal | null> {
  if (!options.authenticate) return null
  const p = options.authenticate(request)
  // Any thenable (a host's own promise library) is waited for, as `await` would.
  return isThenable(p) ? Promise.resolve(p).then(checked) : checked(p)
}

const isThenable = (p: unknown): p is PromiseLike<Principal | null> =>
  typeof p === 'object' && p !== null && typeof (p as { then?: unknown }).then === 'function'

/** As callerOf, always as a promise (the CalDAV face's door). */
export async function authenticate(options: ResolvedOptions, request: RequestLike): Promise<Principal | null> {
  return callerOf(options, request)
}

function checked(p: Principal | null | undefined): Principal | null {
  if (p === null || p === undefined) return null
  if (typeof p !== 'object' || !Number.isSafeInteger(p.id) || !isRole(p.role)) {
    throw new TypeError('calendar-events-router: authenticate() must return null or { id: integer, role }')
  }
  return p
}
