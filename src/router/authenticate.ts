/** The caller, from the host's `authenticate` hook, checked before anything trusts it. */
import { isRole, type Principal } from '../auth/principal.js'
import type { RequestLike } from '../http/types.js'
import type { ResolvedOptions } from '../options.js'

export async function authenticate(options: ResolvedOptions, request: RequestLike): Promise<Principal | null> {
  if (!options.authenticate) return null
  const p = await options.authenticate(request)
  if (p === null || p === undefined) return null
  if (typeof p !== 'object' || !Number.isSafeInteger(p.id) || !isRole(p.role)) {
    throw new TypeError('calendar-events-router: authenticate() must return null or { id: integer, role }')
  }
  return p
}
