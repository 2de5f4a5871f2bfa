/**
 * Bearer-token authentication for the example servers:
 * CALENDAR_API_TOKENS="tokenA:administrator,tokenB:subscriber" gives one principal per token
 * (distinct user ids 1, 2, ...); CALENDAR_API_TOKEN="x" is a single administrator.
 */
import { randomBytes } from 'node:crypto'
import { ROLES, type AuthRequest, type Principal, type Role } from '../../src/index.js'

export interface TokenAuth {
  authenticate: (request: AuthRequest) => Principal | null
  /** Set when no token was configured and one was generated for this run. */
  generated: string | null
}

export function tokenAuth(env: NodeJS.ProcessEnv = process.env): TokenAuth {
  const principals = new Map<string, Principal>()
  const specs = (env.CALENDAR_API_TOKENS ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  for (const spec of specs) {
    const at = spec.lastIndexOf(':')
    const token = at > 0 ? spec.slice(0, at) : spec
    const role = (at > 0 ? spec.slice(at + 1) : 'administrator') as Role
    if (!ROLES.includes(role)) throw new Error(`CALENDAR_API_TOKENS: unknown role "${role}" (use ${ROLES.join(', ')})`)
    principals.set(token, { id: principals.size + 1, role })
  }
  if (env.CALENDAR_API_TOKEN) principals.set(env.CALENDAR_API_TOKEN, { id: principals.size + 1, role: 'administrator' })
  let generated: string | null = null
  if (principals.size === 0) {
    generated = randomBytes(18).toString('base64url')
    principals.set(generated, { id: 1, role: 'administrator' })
  }
  return {
    generated,
    authenticate(request) {
      const header = request.headers.get('authorization')
      if (!header || !/^bearer /i.test(header)) return null
      return principals.get(header.slice(7).trim()) ?? null
    },
  }
}
