/**
 * For the framework peers: the router's own answers captured as plain objects, so hono and
 * fastify serve the very same data (a Map lookup and their own JSON serialisation per request).
 */
import { EVENTS_PATH, type Captured } from '../seed.js'

export interface PageData {
  events: Map<number, unknown>
  singleHeaders: Record<string, string>
  listHeaders: Record<string, string>
  envelope: Record<string, unknown>
  /** The list's own items: an event embedded in a list carries less than a single read (no venue JSON-LD). */
  pageEvents: unknown[]
}

export async function pageData(
  ids: number[],
  listPath: string,
  capture: (origin: string, path: string) => Promise<Captured>,
  origin: string,
) {
  const data: PageData = { events: new Map(), singleHeaders: {}, listHeaders: {}, envelope: {}, pageEvents: [] }
  for (const id of ids) {
    const { headers, body } = await capture(origin, `${EVENTS_PATH}/${id}`)
    data.events.set(id, JSON.parse(body))
    data.singleHeaders = headers
  }
  const list = await capture(origin, listPath)
  const { events: page, ...rest } = JSON.parse(list.body) as { events: { id: number }[] }
  data.listHeaders = list.headers
  data.envelope = rest
  data.pageEvents = page
  return data
}
