/**
 * The example servers' users: CALENDAR_API_TOKENS entries `token:role[:userId]` give each token a
 * stable user id, and those ids are the only valid `author` values of the running server.
 */
import { describe, expect, it } from 'vitest'
import { startServer } from '../examples/node-server/server.js'
import { tokenAuth } from '../examples/node-server/auth.js'

const bearer = (token: string) => ({
  headers: { get: (n: string) => (n === 'authorization' ? `Bearer ${token}` : null) },
  method: 'GET',
  url: 'http://x/',
})

describe('example token users', () => {
  it('reads token:role:id, defaults ids to list positions, and knows exactly those users', () => {
    const auth = tokenAuth({
      CALENDAR_API_TOKENS: 'a:administrator:10, b:editor, c:author:42, d:e:f:contributor:7, plain',
      CALENDAR_API_TOKEN: 'solo',
    })
    expect(auth.authenticate(bearer('a'))).toEqual({ id: 10, role: 'administrator' })
    expect(auth.authenticate(bearer('b'))).toEqual({ id: 2, role: 'editor' })
    expect(auth.authenticate(bearer('c'))).toEqual({ id: 42, role: 'author' })
    // A token may itself contain ':'; role and id are read from the right.
    expect(auth.authenticate(bearer('d:e:f'))).toEqual({ id: 7, role: 'contributor' })
    expect(auth.authenticate(bearer('plain'))).toEqual({ id: 5, role: 'administrator' })
    expect(auth.authenticate(bearer('solo'))).toEqual({ id: 43, role: 'administrator' })
    expect(auth.authenticate(bearer('nobody'))).toBeNull()
    for (const id of [10, 2, 42, 7, 5, 43]) expect(auth.users.exists(id)).toBe(true)
    for (const id of [1, 3, 4, 6, 44, 987654321]) expect(auth.users.exists(id)).toBe(false)
    // The same order gives the same ids on every start.
    expect(tokenAuth({ CALENDAR_API_TOKENS: 'b:editor,x:subscriber' }).authenticate(bearer('x'))).toEqual({ id: 2, role: 'subscriber' })
  })

  it('takes HTTP Basic for calendar apps: any user name, a token as the password', () => {
    const auth = tokenAuth({ CALENDAR_API_TOKENS: 'k3y:editor:7,with:colon:subscriber:8' })
    const basic = (credentials: string) => ({
      headers: { get: (n: string) => (n === 'authorization' ? `Basic ${btoa(credentials)}` : null) },
      method: 'PROPFIND',
      url: 'http://x/caldav/',
    })
    expect(auth.authenticate(basic('anyone:k3y'))).toEqual({ id: 7, role: 'editor' })
    expect(auth.authenticate(basic(':k3y'))).toEqual({ id: 7, role: 'editor' })
    // The password is everything after the first colon.
    expect(auth.authenticate(basic('me:with:colon'))).toEqual({ id: 8, role: 'subscriber' })
    expect(auth.authenticate(basic('k3y'))).toBeNull()
    expect(auth.authenticate(basic('anyone:wrong'))).toBeNull()
  })

  it('lets two tokens name one user only with one role', () => {
    const rotating = tokenAuth({ CALENDAR_API_TOKENS: 'old:editor:3,new:editor:3' })
    expect(rotating.authenticate(bearer('old'))).toEqual(rotating.authenticate(bearer('new')))
    expect(() => tokenAuth({ CALENDAR_API_TOKENS: 'a:editor:3,b:administrator:3' })).toThrow(/user 3 is given two roles/)
    expect(() => tokenAuth({ CALENDAR_API_TOKENS: 'a:administrator,b:editor:1' })).toThrow(/two roles/)
    expect(() => tokenAuth({ CALENDAR_API_TOKENS: 'a:administrator:0' })).toThrow(/positive integer/)
  })

  it('the server answers 400 naming author for an id no token stands for', async () => {
    const s = await startServer({
      PORT: '0',
      HOST: '127.0.0.1',
      CALENDAR_STORAGE: 'memory',
      CALENDAR_CACHE: 'off',
      CALENDAR_DEMO: 'off',
      CALENDAR_API_TOKENS: 'boss:administrator:1,ed:editor:7',
    })
    try {
      const root = `http://127.0.0.1:${s.port}/wp-json/calendar/events/v1`
      const post = (author: number) =>
        fetch(`${root}/events`, {
          method: 'POST',
          headers: { authorization: 'Bearer boss', 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'Gig', start_date: 'tomorrow 7pm', end_date: 'tomorrow 9pm', author }),
        })
      const unknown = await post(987654321)
      expect(unknown.status).toBe(400)
      expect(((await unknown.json()) as { data: { params: object } }).data.params).toEqual({ author: 'Invalid parameter.' })
      const known = await post(7)
      expect(known.status).toBe(201)
      expect(((await known.json()) as { author: string }).author).toBe('7')
    } finally {
      await new Promise<void>((resolve) => s.server.close(() => resolve()))
      await s.storage.close?.()
    }
  })
})
