/** The namespace root and /doc routes: both describe the route table they belong to. */
import type { Context } from '../context.js'
import { ok, type Reply } from '../resources/respond.js'
import type { DescribingHandlers, RouteDef } from '../routes.js'
import { buildIndex } from './discovery.js'
import { buildOpenApi } from './openapi.js'

/**
 * `table` is read on each request: the router builds the table with these handlers in it. Their
 * parameters (`context`, the language) only need validating, which the router did.
 */
export function describingHandlers(table: () => RouteDef[]): DescribingHandlers {
  return {
    async namespaceIndex(ctx: Context): Promise<Reply> {
      return ok(buildIndex(ctx, table(), ctx.schemas))
    },
    async openApiDocument(ctx: Context): Promise<Reply> {
      return ok(buildOpenApi(ctx, table(), ctx.schemas, ctx.requestRoot))
    },
  }
}
