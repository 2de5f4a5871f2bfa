/** Parameter definitions → JSON Schema, from the very schemas that validate requests. */
import { toJsonSchema } from '@valibot/to-json-schema'
import type { ParamDef } from '../schemas/operation.js'
import { wireOfAction, type JsonSchema } from '../schemas/wire.js'

const cache = new WeakMap<object, JsonSchema>()

export function paramSchema(def: ParamDef): JsonSchema {
  let json = cache.get(def.schema)
  if (!json) {
    const converted = toJsonSchema(def.schema, {
      target: 'draft-2020-12',
      typeMode: 'input',
      // Checks and transforms have no JSON Schema form; the declared wire type stands for them.
      errorMode: 'ignore',
      overrideAction: (c) => {
        const w = wireOfAction(c.valibotAction as { type: string; metadata?: Record<string, unknown> })
        return w ? { ...w } : undefined
      },
    }) as JsonSchema
    const { $schema: _ignored, ...rest } = converted
    json = rest
    cache.set(def.schema, json)
  }
  return json
}

/** The default as shown to clients (functions are evaluated per request, as WordPress does). */
export function shownDefault(def: ParamDef, now?: { local: string }): unknown {
  if (def.shownDefault && now) return def.shownDefault(now)
  return typeof def.default === 'function' ? (def.default as () => unknown)() : def.default
}
