// Peer (6): fastify 5 with its own router (digit-only :id), serving the same data.
import http from 'node:http'
import Fastify from 'fastify'
import { EVENTS_PATH, seed, serve } from '../seed.js'
import { pageData, type PageData } from './page-data.js'

const seeded = await seed()
const { ids, paths, capture } = seeded
let data: PageData
let handler: http.RequestListener | undefined
const app = Fastify({
  serverFactory: (h) => {
    handler = h
    return http.createServer(h)
  },
})
app.get(`${EVENTS_PATH}/:id(^\\d+)`, async (req, reply) => {
  const event = data.events.get(Number((req.params as { id: string }).id))
  if (event === undefined) return reply.code(404).send({ code: 'rest-event-not-found' })
  return reply.headers(data.singleHeaders).send(event)
})
app.get(EVENTS_PATH, async (_req, reply) => reply.headers(data.listHeaders).send({ events: data.pageEvents, ...data.envelope }))
await app.ready()

await serve(handler!, seeded, async (origin) => {
  data = await pageData(ids, paths[1], capture, origin)
})
