// Baseline (2): node:http doing the minimum real work per request: a Map lookup and JSON.stringify.
import type http from 'node:http'
import { EVENTS_PATH, seed, serve } from '../seed.js'

const seeded = await seed()
const { ids, paths, capture } = seeded
const events = new Map<number, unknown>()
let singleHeaders: Record<string, string> = {}
let listHeaders: Record<string, string> = {}
let envelope: Record<string, unknown> = {}
// The list's own items: an event embedded in a list carries less than a single read.
let pageEvents: unknown[] = []

function send(res: http.ServerResponse, headers: Record<string, string>, body: string) {
  res.writeHead(200, { ...headers, 'content-length': String(Buffer.byteLength(body)) })
  res.end(body)
}

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  const url = req.url!
  if (url.startsWith(EVENTS_PATH + '/')) {
    const event = events.get(Number(url.slice(EVENTS_PATH.length + 1)))
    if (event !== undefined) return send(res, singleHeaders, JSON.stringify(event))
  } else if (url.startsWith(EVENTS_PATH + '?')) {
    return send(res, listHeaders, JSON.stringify({ events: pageEvents, ...envelope }))
  }
  res.writeHead(404, { 'content-length': '0' }).end()
}

await serve(handler, seeded, async (origin) => {
  for (const id of ids) {
    const { headers, body } = await capture(origin, `${EVENTS_PATH}/${id}`)
    events.set(id, JSON.parse(body))
    singleHeaders = headers
  }
  const list = await capture(origin, paths[1])
  const { events: page, ...rest } = JSON.parse(list.body) as { events: { id: number }[] }
  listHeaders = list.headers
  envelope = rest
  pageEvents = page
})
