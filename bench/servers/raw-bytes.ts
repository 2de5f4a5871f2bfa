// Baseline (1): node:http writing precomputed bytes, the ceiling for any handler on this machine.
import type http from 'node:http'
import { seed, serve } from '../seed.js'

const seeded = await seed()
const { paths, capture } = seeded
const table = new Map<string, { status: number; headers: Record<string, string>; body: Buffer }>()

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  const hit = table.get(req.url!)
  if (hit === undefined) return void res.writeHead(404, { 'content-length': '0' }).end()
  res.writeHead(hit.status, hit.headers)
  res.end(hit.body)
}

await serve(handler, seeded, async (origin) => {
  for (const path of paths) {
    const { status, headers, body } = await capture(origin, path)
    const bytes = Buffer.from(body)
    table.set(path, { status, headers: { ...headers, 'content-length': String(bytes.length) }, body: bytes })
  }
})
