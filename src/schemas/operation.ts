/**
 * One operation = the parameters it accepts, each a valibot schema plus what discovery and
 * /doc show (description, required, default). `validateParams` applies WordPress's processing
 * order: required check, then every present parameter validated, all failures reported together.
 */
import * as v from 'valibot'
import { decodeFailure, type ParamFailure } from './failure.js'
import { invalidParams, missingParams } from '../http/errors.js'

export interface ParamDef {
  schema: v.GenericSchema
  description: string
  required?: boolean
  /** Raw default, applied before validation (WordPress counts it as present). */
  default?: unknown
  /**
   * A default computed per request that discovery and /doc show but validation does not apply
   * (the handler derives it itself, e.g. the list window from the site clock).
   */
  shownDefault?: (now: { local: string }) => unknown
  /** Where /doc documents it; body parameters of writes are also accepted in the query. */
  in?: 'query' | 'path' | 'body'
}

export type ParamDefs = Record<string, ParamDef>

/**
 * `required` on creates only, keeping the literal in the type so that a create's input has the
 * key for sure (written inline, `satisfies ParamDefs` would widen it to boolean).
 */
export const requiredIf = <C extends boolean>(create: C): { required: C } => ({ required: create })

/** A parameter always present after validation: required, or with a default (applied, then validated). */
type Always<D> = D extends { required: true } ? true : D extends { default: infer X } ? ([X] extends [undefined] ? false : true) : false

type Output<D> = D extends { schema: infer S extends v.GenericSchema } ? v.InferOutput<S> : never

/**
 * The validated parameters of an operation: required and defaulted ones are always there, the
 * others only when sent. Defs must keep their literal types (`satisfies ParamDef`, not `: ParamDef`).
 */
export type ParamsOutput<P extends ParamDefs> = Simplify<
  { [K in keyof P as Always<P[K]> extends true ? K : never]: Output<P[K]> } & {
    [K in keyof P as Always<P[K]> extends true ? never : K]?: Output<P[K]>
  }
>

type Simplify<T> = { [K in keyof T]: T[K] } & {}

export function validateParams<P extends ParamDefs>(defs: P, input: Record<string, unknown>): ParamsOutput<P> {
  const missing: string[] = []
  for (const [name, def] of Object.entries(defs)) {
    if (def.required && (input[name] === undefined || input[name] === null)) missing.push(name)
  }
  if (missing.length) throw missingParams(missing)

  const out: Record<string, unknown> = {}
  const failures = new Map<string, ParamFailure>()
  for (const [name, def] of Object.entries(defs)) {
    let value = Object.hasOwn(input, name) ? input[name] : undefined
    if (value === undefined) {
      if (def.default === undefined) continue
      value = typeof def.default === 'function' ? (def.default as () => unknown)() : def.default
    }
    // NUL cannot be stored by PostgreSQL and is never meaningful in calendar data.
    if (containsNul(value)) {
      failures.set(name, { message: 'Invalid parameter.' })
      continue
    }
    const result = v.safeParse(def.schema, value)
    if (result.success) out[name] = result.output
    else {
      const { name: at, ...failure } = decodeFailure(name, result.issues[0].message)
      failures.set(at, failure)
    }
  }
  if (failures.size) throw invalidParams(failures)
  return out as ParamsOutput<P>
}

function containsNul(root: unknown): boolean {
  const stack = [root]
  while (stack.length) {
    const x = stack.pop()
    if (typeof x === 'string') {
      if (x.includes('\u0000')) return true
    } else if (typeof x === 'object' && x !== null) {
      for (const [k, v] of Object.entries(x)) {
        if (k.includes('\u0000')) return true
        stack.push(v)
      }
    }
  }
  return false
}
