// Peer (5): hono 4 with @hono/node-server, its own router (digit-only :id) serving the same data.
import { getRequestListener } from '@hono/node-server'
import { Hono } from 'hono'
import { EVENTS_PATH, seed, serve } from '../seed.js'
import { pageData, type PageData } from './page-data.js'

const seeded = await seed()
const { ids, paths, capture } = seeded
let data: PageData
const app = new Hono()
app.get(`${EVENTS_PATH}/:id{[0-9]+}`, (c) => {
  const event = data.events.get(Number(c.req.param('id')))
  if (event === undefined) return c.json({ code: 'rest-event-not-found' }, 404)
  return c.json(event, 200, data.singleHeaders)
})
app.get(EVENTS_PATH, (c) => c.json({ events: data.pageEvents, ...data.envelope }, 200, data.listHeaders))

await serve(getRequestListener(app.fetch), seeded, async (origin) => {
  data = await pageData(ids, paths[1], capture, origin)
})
