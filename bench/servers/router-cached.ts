// Subject (4): as (3), with the optional read cache that keeps serialized anonymous responses.
import { toNodeHandler } from '../../adapters/node/index.js'
import { seed, serve } from '../seed.js'

const { router, paths } = await seed({ cache: { ttlMs: 60_000 } })
await serve(toNodeHandler(router), paths)
