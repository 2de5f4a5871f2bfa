/**
 * The namespace root and /doc: the two routes that describe the route table they are part of.
 * The router builds the table as these two followed by the resources' routes (src/routes.ts)
 * and hands them that same table, so discovery, /doc and dispatch read one list.
 */
import { ok } from '../resources/respond.js'
import { endpoint, route, type RouteDef } from '../routes.js'
import { buildIndex } from './discovery.js'
import { buildOpenApi } from './openapi.js'

/** `table` is the whole route table these routes will be part of (filled by the router). */
export function describingRoutes(table: readonly RouteDef[]): RouteDef[] {
  return [
    route('', '', {
      // eslint-disable-next-line @typescript-eslint/require-await -- a Handler returns a Promise; building the document may throw, and that must reject like any handler's failure
      GET: endpoint('root', async (ctx) => ok(buildIndex(ctx, table, ctx.schemas)), {
        summary: 'Describe the namespace and its routes',
        response: 'NamespaceIndex',
        errors: [400],
      }),
    }),
    route('/doc', '/doc', {
      // eslint-disable-next-line @typescript-eslint/require-await -- a Handler returns a Promise; building the document may throw, and that must reject like any handler's failure
      GET: endpoint('doc', async (ctx) => ok(buildOpenApi(ctx, table, ctx.schemas, ctx.requestRoot)), {
        summary: 'This OpenAPI document',
        response: 'object',
        errors: [400],
      }),
    }),
  ]
}
