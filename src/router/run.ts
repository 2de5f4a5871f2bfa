/**
 * Runs an endpoint's handler with its input validated once, with the endpoint's operation
 * (WordPress's order: required check, then every parameter, all failures together).
 */
import type { Context } from '../context.js'
import { emptyParams, type Params } from '../http/params.js'
import type { Reply } from '../resources/respond.js'
import type { Endpoint } from '../routes.js'
import type { Schemas } from '../schemas/index.js'
import { validateParams } from '../schemas/operation.js'

export async function runEndpoint(endpoint: Endpoint, ctx: Context, schemas: Schemas): Promise<Reply> {
  // Path captures name the record, whatever the body says.
  const raw: Params = Object.assign(emptyParams(), ctx.params, ctx.path)
  const input = validateParams(schemas[endpoint.target ?? endpoint.op], endpoint.prepare ? endpoint.prepare(ctx, raw) : raw)
  // The table erases each handler's input type; `endpoint()` and `targeted()` in routes.ts
  // checked it against this very operation when the table was built.
  if (!endpoint.target) return endpoint.run(ctx, input as never, undefined as never)
  const op = endpoint.op
  // The record's own fields, read once the handler has found and authorised it. A key the path
  // captured (a by-slug update's `slug`) comes from the body alone: there it renames the record.
  const fields = () => {
    const given: Params = Object.assign(emptyParams(), ctx.params)
    for (const key of Object.keys(ctx.path)) {
      if (ctx.body[key] === undefined) delete given[key]
      else given[key] = ctx.body[key]
    }
    return validateParams(schemas[op], given)
  }
  return endpoint.run(ctx, input as never, fields as never)
}
