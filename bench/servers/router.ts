// Subject (3): the router on memory storage behind the Node adapter, as users deploy it.
import { toNodeHandler } from '../../adapters/node/index.js'
import { seed, serve } from '../seed.js'

const { router, paths } = await seed()
await serve(toNodeHandler(router), paths)
