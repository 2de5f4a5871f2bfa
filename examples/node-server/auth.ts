/**
 * Bearer-token authentication for the example servers.
 *
 * CALENDAR_API_TOKENS is a comma list of `token:role[:userId]`, e.g.
 * "k3y-a:administrator:1,k3y-b:editor:7,k3y-c:author". Each token is one user: the role as
 * given (default administrator), the user id as given, else the token's position in the list
 * (1, 2, ...), which stays the same as long as the list keeps its order. Several tokens may
 * name the same user (e.g. while rotating a token) if they agree on the role.
 * CALENDAR_API_TOKEN="x" adds one administrator with the next free id.
 * These users are the site's users: an `author` on a write must be one of their ids.
 * Calendar apps (CalDAV) sign in with HTTP Basic: any user name, a token as the password.
 */
import { randomBytes } from 'node:crypto'
import { ROLES, type AuthRequest, type Principal, type Role, type UserDirectory } from '../../src/index.js'

export interface TokenAuth {
  authenticate: (request: AuthRequest) => Principal | null
  /** The user ids the tokens stand for (the router's `users` option). */
  users: UserDirectory
  /** Set when no token was configured and one was generated for this run. */
  generated: string | null
}

interface Spec {
  token: string
  role: Role
  id: number | null
}

function parseSpec(spec: string): Spec {
  const parts = spec.split(':')
  let id: number | null = null
  // The token itself may contain ':'; role and id are read from the right.
  if (parts.length >= 3 && /^\d+$/.test(parts[parts.length - 1]!) && ROLES.includes(parts[parts.length - 2] as Role)) {
    id = Number(parts.pop())
    if (!Number.isSafeInteger(id) || id < 1) throw new Error(`CALENDAR_API_TOKENS: user id must be a positive integer`)
  }
  const role = (parts.length >= 2 ? parts.pop() : 'administrator') as Role
  if (!ROLES.includes(role)) throw new Error(`CALENDAR_API_TOKENS: unknown role "${role}" (use ${ROLES.join(', ')})`)
  return { token: parts.join(':'), role, id }
}

/**
 * HTTP Basic, app-password style, for calendar apps (CalDAV): any user name, one of the tokens
 * as the password. Null when the header is not Basic.
 */
function basicPassword(header: string): string | null {
  if (!/^basic /i.test(header)) return null
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon === -1 ? null : decoded.slice(colon + 1)
}

export function tokenAuth(env: NodeJS.ProcessEnv = process.env): TokenAuth {
  const specs = (env.CALENDAR_API_TOKENS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseSpec)
  const principals = new Map<string, Principal>()
  const roleOf = new Map<number, Role>()
  const add = (token: string, principal: Principal) => {
    const known = roleOf.get(principal.id)
    if (known !== undefined && known !== principal.role) {
      throw new Error(
        `CALENDAR_API_TOKENS: user ${principal.id} is given two roles (${known}, ${principal.role}); give the tokens distinct ids`,
      )
    }
    roleOf.set(principal.id, principal.role)
    principals.set(token, principal)
  }
  specs.forEach((s, i) => add(s.token, { id: s.id ?? i + 1, role: s.role }))
  const nextId = () => Math.max(0, ...roleOf.keys()) + 1
  if (env.CALENDAR_API_TOKEN) add(env.CALENDAR_API_TOKEN, { id: nextId(), role: 'administrator' })
  let generated: string | null = null
  if (principals.size === 0) {
    generated = randomBytes(18).toString('base64url')
    add(generated, { id: 1, role: 'administrator' })
  }
  return {
    generated,
    users: { exists: (id) => roleOf.has(id) },
    authenticate(request) {
      const header = request.headers.get('authorization')
      const token = header ? (/^bearer /i.test(header) ? header.slice(7).trim() : basicPassword(header)) : null
      const principal = token === null ? undefined : principals.get(token)
      return principal ? { ...principal } : null
    },
  }
}
