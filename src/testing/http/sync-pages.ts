/** Following a sync to its end over HTTP (the sync and recurrence suites). */
import { expect } from './expect.js'
import { NS_PATH, type App, type Caller, type Res } from './harness.js'

/** The path and query of a link the API gave (next_rest_url), for the harness. */
export const pathOf = (url: string) => {
  const u = new URL(url)
  return u.pathname.slice(u.pathname.indexOf(NS_PATH) + NS_PATH.length) + u.search
}

export interface SyncResult {
  items: Array<{ id: number } & Record<string, unknown>>
  deleted: number[]
  token: string
  pages: number
}

/**
 * One sync, following next_rest_url to the end.
 *
 * @example
 * let { items, token } = await sync(app, '/events', '*')
 */
export async function sync(
  app: App,
  path: string,
  token: string,
  opts: { as?: Caller; perPage?: number; between?: () => Promise<void> } = {},
): Promise<SyncResult> {
  const key = path.split('?')[0]!.replace(/^\//, '')
  const glue = path.includes('?') ? '&' : '?'
  let res: Res = await app.get(
    `${path}${glue}sync_token=${encodeURIComponent(token)}&per_page=${opts.perPage ?? 3}`,
    opts.as ? { as: opts.as } : {},
  )
  const out: SyncResult = { items: [], deleted: [], token: '', pages: 0 }
  for (;;) {
    expect(res.status, res.text).toBe(200)
    out.pages++
    out.items.push(...res.body[key])
    out.deleted.push(...res.body.deleted)
    if (!res.body.next_rest_url) break
    expect(res.body.sync_token).toBeUndefined()
    await opts.between?.()
    res = await app.get(pathOf(res.body.next_rest_url), opts.as ? { as: opts.as } : {})
  }
  expect(typeof res.body.sync_token).toBe('string')
  expect(res.headers.get('x-sync-token')).toBe(res.body.sync_token)
  out.token = res.body.sync_token
  return out
}
