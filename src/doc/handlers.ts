/** The namespace root and /doc routes. */
import type { Context } from '../resources/context.js'
import { ok, type Reply } from '../resources/respond.js'
import { buildRoutes } from '../routes.js'
import type { Schemas } from '../schemas/index.js'
import { validateParams } from '../schemas/operation.js'
import { buildIndex } from './discovery.js'
import { buildOpenApi } from './openapi.js'

// The route table is static; building it once here avoids a cycle with routes.ts at load time.
let routes: ReturnType<typeof buildRoutes> | null = null
const table = () => (routes ??= buildRoutes())

export async function namespaceIndex(ctx: Context, schemas: Schemas): Promise<Reply> {
  validateParams(schemas.root, ctx.params)
  return ok(buildIndex(ctx, table(), schemas))
}

export async function openApiDocument(ctx: Context, schemas: Schemas): Promise<Reply> {
  validateParams(schemas.doc, ctx.params)
  return ok(buildOpenApi(ctx, table(), schemas, ctx.requestRoot))
}
