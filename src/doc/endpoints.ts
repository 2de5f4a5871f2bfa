/** The namespace root and /doc routes: both describe the route table they belong to. */
import type { Context } from '../context.js'
import { ok, type Reply } from '../resources/respond.js'
import type { DescribingHandlers, RouteDef } from '../routes.js'
import type { Schemas } from '../schemas/index.js'
import { validateParams } from '../schemas/operation.js'
import { buildIndex } from './discovery.js'
import { buildOpenApi } from './openapi.js'

/** `table` is read on each request: the router builds the table with these handlers in it. */
export function describingHandlers(table: () => RouteDef[]): DescribingHandlers {
  return {
    async namespaceIndex(ctx: Context, schemas: Schemas): Promise<Reply> {
      validateParams(schemas.root, ctx.params)
      return ok(buildIndex(ctx, table(), schemas))
    },
    async openApiDocument(ctx: Context, schemas: Schemas): Promise<Reply> {
      validateParams(schemas.doc, ctx.params)
      return ok(buildOpenApi(ctx, table(), schemas, ctx.requestRoot))
    },
  }
}
