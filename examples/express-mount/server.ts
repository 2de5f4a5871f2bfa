/**
 * An existing Express app (its own pages, JSON routes and body parsers) with the calendar mounted
 * under /wp-json. Run: `npm run example:express-mount`.
 *
 * Callers sign in with a bearer token (CALENDAR_API_TOKENS, as for `npm start`) or with the
 * host's own cookie session: `POST /login` (username, password) sets a session cookie and returns
 * a nonce. The session reaches the calendar's `authenticate` as `request.raw.session`. Writes
 * signed in by cookie must send the nonce as `X-WP-Nonce` (WordPress's rule), so another site
 * cannot write with a visitor's cookie.
 *
 * Environment: PORT (8080), HOST (127.0.0.1), CALENDAR_USERS ("alice:secret:editor,..."; default
 * one `admin` with a password generated for the run), and CALENDAR_STORAGE, CALENDAR_DB,
 * CALENDAR_DATABASE_URL, CALENDAR_API_TOKENS, CALENDAR_TIMEZONE, CALENDAR_CORS_ORIGINS as for `npm start`.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import express, { type Request } from 'express'
import { createCalendarRouter, ROLES, type Principal, type Role } from '../../src/index.js'
import { calendarMiddleware } from '../../adapters/express/index.js'
import { openStorage } from '../node-server/storage.js'
import { exampleOptions, stopOnSignals } from '../shared/options.js'

interface Session {
  user: string
  principal: Principal
  nonce: string
}
/** What the host's session middleware adds to every request. */
type HostRequest = Request & { session?: Session }

function users(env: NodeJS.ProcessEnv): { byName: Map<string, { password: string; principal: Principal }>; generated: string | null } {
  const byName = new Map<string, { password: string; principal: Principal }>()
  let generated: string | null = null
  const specs = (env.CALENDAR_USERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (!specs.length) specs.push(`admin:${(generated = randomBytes(12).toString('base64url'))}:administrator`)
  for (const spec of specs) {
    const [name = '', password = '', role = 'subscriber'] = spec.split(':')
    if (!ROLES.includes(role as Role)) throw new Error(`CALENDAR_USERS: unknown role "${role}"`)
    byName.set(name, { password, principal: { id: 1000 + byName.size, role: role as Role } })
  }
  return { byName, generated }
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

export async function createApp(env: NodeJS.ProcessEnv = process.env) {
  const { options, generatedToken } = exampleOptions(env)
  const { storage, description } = await openStorage(env)
  const accounts = users(env)
  const sessions = new Map<string, Session>()

  const accountIds = new Set([...accounts.byName.values()].map((a) => a.principal.id))
  const calendar = createCalendarRouter(storage, {
    ...options,
    // Token users and signed-in accounts are the site's users (valid `author` values).
    users: { exists: (id) => accountIds.has(id) || options.users!.exists(id) === true },
    authenticate(request) {
      const byToken = options.authenticate!(request)
      if (byToken) return byToken
      const session = (request.raw as HostRequest | undefined)?.session
      if (!session) return null
      const safe = request.method === 'GET' || request.method === 'HEAD'
      return safe || same(request.headers.get('x-wp-nonce') ?? '', session.nonce) ? session.principal : null
    },
  })

  const app = express()
  // The host parses bodies for its own routes; the calendar re-uses what they parsed.
  app.use(express.json())
  app.use(express.urlencoded({ extended: true }))
  // The host's session: a cookie naming an entry of `sessions`.
  app.use((req: HostRequest, _res, next) => {
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1]
    const session = sid ? sessions.get(sid) : undefined
    if (session) req.session = session
    next()
  })

  app.get('/', (req: HostRequest, res) => {
    res.type('html').send(`<h1>My site</h1><p>${req.session ? `Signed in as ${req.session.user}` : 'Not signed in'}.</p>`)
  })
  app.post('/login', (req, res) => {
    const { username, password } = (req.body ?? {}) as { username?: unknown; password?: unknown }
    const account = typeof username === 'string' ? accounts.byName.get(username) : undefined
    if (!account || typeof password !== 'string' || !same(password, account.password)) {
      return void res.status(401).json({ error: 'wrong username or password' })
    }
    const sid = randomBytes(24).toString('base64url')
    const session = { user: username as string, principal: account.principal, nonce: randomBytes(12).toString('base64url') }
    sessions.set(sid, session)
    res.cookie('sid', sid, { httpOnly: true, sameSite: 'lax', path: '/' })
    res.json({ user: session.user, role: session.principal.role, nonce: session.nonce })
  })
  app.post('/logout', (req: HostRequest, res) => {
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1]
    if (sid) sessions.delete(sid)
    res.clearCookie('sid', { path: '/' }).status(204).end()
  })
  // The host's own JSON route beside the calendar under the same prefix.
  app.get('/wp-json/site/v1/status', (_req, res) => {
    res.json({ ok: true })
  })

  app.use('/wp-json', calendarMiddleware(calendar))
  app.use((_req, res) => {
    res.status(404).type('text').send('Not found')
  })

  return { app, storage, storageDescription: description, generatedToken, generatedPassword: accounts.generated }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const env = process.env
  const { app, storage, storageDescription, generatedToken, generatedPassword } = await createApp(env)
  const server = app.listen(Number(env.PORT ?? 8080), env.HOST ?? '127.0.0.1', () => {
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : env.PORT
    const site = `http://${env.HOST ?? '127.0.0.1'}:${port}`
    console.log(`calendar-events-router listening on ${site}/wp-json/calendar/events/v1/`)
    console.log(`storage: ${storageDescription}`)
    console.log(`host routes: ${site}/, POST ${site}/login, ${site}/wp-json/site/v1/status`)
    if (generatedPassword) console.log(`No CALENDAR_USERS set: sign in as admin / ${generatedPassword}`)
    if (generatedToken) console.log(`No CALENDAR_API_TOKENS set: administrator token for this run is ${generatedToken}`)
  })
  stopOnSignals(server, storage)
}
