/** OPTIONS: a CORS preflight, or (as WordPress does) the route's own description. */
import { buildIndex } from '../doc/discovery.js'
import { isPreflight, preflight } from '../http/cors.js'
import { noRoute } from '../http/errors.js'
import type { Params } from '../http/params.js'
import { errorResponse, jsonResponse, type ResponseMeta } from '../http/response.js'
import type { RawResponse, RequestLike } from '../http/types.js'
import { queryOnly } from './context.js'
import type { Routing } from './dispatch.js'
import type { Located } from './locate.js'

export async function answerOptions(
  routing: Routing,
  request: RequestLike,
  located: Located,
  query: Params,
  meta: ResponseMeta,
): Promise<RawResponse> {
  const { cors } = routing.options
  if (located.siteIndex) {
    if (cors && isPreflight(request, 'OPTIONS')) return preflight(cors, request, ['GET'])
    meta.allow = ['GET']
    return jsonResponse(200, { namespace: '', methods: ['GET'], endpoints: [{ methods: ['GET'], args: [] }] }, meta)
  }
  const { def } = await routing.match(located.path, 'GET')
  if (!def) return errorResponse(noRoute(), meta)
  const methods = Object.keys(def.endpoints)
  if (cors && isPreflight(request, 'OPTIONS')) return preflight(cors, request, methods)
  const ctx = routing.context(queryOnly(request, located, 'OPTIONS', null, query))
  const index = buildIndex(ctx, [def], ctx.schemas)
  meta.allow = methods
  return jsonResponse(200, Object.values(index.routes)[0], meta)
}
