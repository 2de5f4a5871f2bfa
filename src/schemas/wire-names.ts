/**
 * The operations' parameters under a namespace's names. Validation, its error messages,
 * discovery and /doc all read the operations, so renaming the language parameter here (in its
 * place, so argument order is kept) is the one change that makes each of them name it as the
 * request's namespace does: `wpml_language` under TEC's names, as WPML adds it to TEC's routes.
 */
import { OWN_NAMES, type WireNames } from '../wire-names.js'
import type { ParamDefs } from './operation.js'
import type { Schemas } from './index.js'

/**
 * `schemas` with the language parameter keyed by `names.languageParam` and the namespace
 * index's `namespace` argument defaulting to `names.namespace`. Built once per router and
 * namespace; our own names get `schemas` itself.
 *
 * @example
 * const tec = schemasUnder(buildSchemas(config), TEC_NAMES)
 * validateParams(tec.eventList, { wpml_language: 'ja' })
 */
export function schemasUnder(schemas: Schemas, names: WireNames): Schemas {
  if (names.namespace === OWN_NAMES.namespace && names.languageParam === OWN_NAMES.languageParam) return schemas
  const out: Record<string, ParamDefs> = {}
  for (const [op, defs] of Object.entries(schemas) as Array<[string, ParamDefs]>) {
    const renamed: ParamDefs = {}
    for (const [key, def] of Object.entries(defs)) {
      if (key === OWN_NAMES.languageParam) renamed[names.languageParam] = def
      else if (op === 'root' && key === 'namespace') renamed[key] = { ...def, default: names.namespace }
      else renamed[key] = def
    }
    out[op] = renamed
  }
  // Only the language key differs from the declared type, and no handler reads it from its
  // input: the request's language reaches handlers as ctx.language (router/context.ts).
  return out as unknown as Schemas
}
