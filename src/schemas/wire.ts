/**
 * The JSON Schema a parameter shows in discovery and /doc. Our schemas accept what WordPress
 * accepts (an integer may arrive as "12"), so their converted input type would be a union;
 * clients need the declared type instead. It travels as a metadata action placed right after
 * the pipe's base schema, where the input-type conversion still reaches it.
 */
import * as v from 'valibot'

export type JsonSchema = Record<string, unknown>

export const WIRE_KEY = 'calendarWire'

export function wire<S extends v.GenericSchema>(schema: S, json: JsonSchema): S {
  const marker = v.metadata({ [WIRE_KEY]: json })
  const items = 'pipe' in schema ? (schema.pipe as unknown[]) : [schema]
  const [base, ...rest] = items
  return (v.pipe as (...a: unknown[]) => unknown)(base, marker, ...rest) as S
}

/** The wire schema carried by a metadata action, if it is one of ours. */
export function wireOfAction(action: { type: string; metadata?: Record<string, unknown> }): JsonSchema | undefined {
  if (action.type !== 'metadata' || !action.metadata) return undefined
  return action.metadata[WIRE_KEY] as JsonSchema | undefined
}
