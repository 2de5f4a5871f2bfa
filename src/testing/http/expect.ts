/**
 * The part of vitest's `expect` the shipped HTTP suites use, built on node:assert so that they
 * run under any test runner with no test framework installed. A failed expectation throws an
 * `AssertionError` (with the optional message first, as vitest prints it).
 */
import { AssertionError } from 'node:assert'
import { inspect } from 'node:util'

/** A value that matches by a rule rather than by equality (`expect.any`, `expect.arrayContaining`). */
abstract class Asymmetric {
  abstract matches(actual: unknown): boolean
  abstract describe(): string
  [inspect.custom](): string {
    return this.describe()
  }
}

class AnyOf extends Asymmetric {
  constructor(private readonly type: unknown) {
    super()
  }
  matches(actual: unknown): boolean {
    const primitive = new Map<unknown, string>([
      [String, 'string'],
      [Number, 'number'],
      [Boolean, 'boolean'],
      [BigInt, 'bigint'],
      [Symbol, 'symbol'],
      [Function, 'function'],
    ])
    const kind = primitive.get(this.type)
    if (kind && typeof actual === kind) return true
    return typeof this.type === 'function' && actual instanceof (this.type as new (...a: never[]) => unknown)
  }
  describe(): string {
    return `Any<${(this.type as { name?: string }).name ?? '?'}>`
  }
}

class ArrayContaining extends Asymmetric {
  constructor(private readonly items: readonly unknown[]) {
    super()
  }
  matches(actual: unknown): boolean {
    return Array.isArray(actual) && this.items.every((want) => actual.some((have) => equals(have, want)))
  }
  describe(): string {
    return `ArrayContaining ${inspect(this.items)}`
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object'

/** vitest's `toEqual`: recursive, properties holding `undefined` count as absent, types of plain data not compared. */
export function equals(a: unknown, b: unknown): boolean {
  if (b instanceof Asymmetric) return b.matches(a)
  if (a instanceof Asymmetric) return a.matches(b)
  if (Object.is(a, b)) return true
  if (!isObject(a) || !isObject(b)) return false
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime())
  if (a instanceof RegExp || b instanceof RegExp) return a instanceof RegExp && b instanceof RegExp && String(a) === String(b)
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (a instanceof Map || a instanceof Set) return b instanceof a.constructor && equals([...a], [...(b as unknown as Iterable<unknown>)])
  if (Array.isArray(a)) {
    const other = b as unknown as unknown[]
    return a.length === other.length && a.every((v, i) => equals(v, other[i]))
  }
  const keys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined)
  const ka = keys(a)
  const kb = keys(b)
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && equals(a[k], b[k]))
}

/** vitest's `toMatchObject`: every property of `want` matches (recursively); arrays match element by element. */
export function matchesObject(have: unknown, want: unknown): boolean {
  if (want instanceof Asymmetric) return want.matches(have)
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => matchesObject(have[i], w))
  if (!isObject(want) || want instanceof Date || want instanceof RegExp) return equals(have, want)
  if (!isObject(have)) return false
  return Object.keys(want).every((k) => (k in have || want[k] === undefined) && matchesObject(have[k], want[k]))
}

function propertyAt(value: unknown, path: string | readonly string[]): { found: boolean; value: unknown } {
  const steps = typeof path === 'string' ? path.split('.') : path
  let at = value
  for (const step of steps) {
    if (at === null || at === undefined || !(step in Object(at))) return { found: false, value: undefined }
    at = (at as Record<string, unknown>)[step]
  }
  return { found: true, value: at }
}

type ErrorWanted = string | RegExp | (new (...args: never[]) => Error) | Error | undefined

function thrownMatches(err: unknown, want: ErrorWanted): boolean {
  const message = err instanceof Error ? err.message : String(err)
  if (want === undefined) return true
  if (typeof want === 'string') return message.includes(want)
  if (want instanceof RegExp) return want.test(message)
  if (want instanceof Error) return message === want.message
  return err instanceof want
}

function thrownBy(fn: () => unknown): { threw: boolean; error: unknown } {
  try {
    fn()
  } catch (error) {
    return { threw: true, error }
  }
  return { threw: false, error: undefined }
}

const show = (v: unknown) => inspect(v, { depth: 6, breakLength: 120 })

/** The matchers, each reporting whether it held and how to say what was wanted. */
function matchers(actual: unknown) {
  type Verdict = [boolean, string]
  const num = actual as number
  return {
    toBe: (want: unknown): Verdict => [Object.is(actual, want), `to be ${show(want)}`],
    toEqual: (want: unknown): Verdict => [equals(actual, want), `to equal ${show(want)}`],
    toStrictEqual: (want: unknown): Verdict => [equals(actual, want), `to equal ${show(want)}`],
    toMatchObject: (want: unknown): Verdict => [matchesObject(actual, want), `to match ${show(want)}`],
    toContain: (want: unknown): Verdict => [
      typeof actual === 'string' ? actual.includes(String(want)) : Array.from(actual as Iterable<unknown>).some((v) => Object.is(v, want)),
      `to contain ${show(want)}`,
    ],
    toHaveLength: (n: number): Verdict => [(actual as { length?: number })?.length === n, `to have length ${n}`],
    toMatch: (want: string | RegExp): Verdict => [
      typeof actual === 'string' && (typeof want === 'string' ? actual.includes(want) : want.test(actual)),
      `to match ${show(want)}`,
    ],
    toHaveProperty: (path: string | readonly string[], ...value: unknown[]): Verdict => {
      const at = propertyAt(actual, path)
      return [
        at.found && (value.length === 0 || equals(at.value, value[0])),
        `to have property ${show(path)}${value.length ? ` = ${show(value[0])}` : ''}`,
      ]
    },
    toBeGreaterThan: (n: number): Verdict => [num > n, `to be greater than ${n}`],
    toBeGreaterThanOrEqual: (n: number): Verdict => [num >= n, `to be at least ${n}`],
    toBeLessThan: (n: number): Verdict => [num < n, `to be less than ${n}`],
    toBeLessThanOrEqual: (n: number): Verdict => [num <= n, `to be at most ${n}`],
    toBeCloseTo: (n: number, digits = 2): Verdict => [Math.abs(num - n) < 10 ** -digits / 2, `to be close to ${n}`],
    toBeUndefined: (): Verdict => [actual === undefined, 'to be undefined'],
    toBeDefined: (): Verdict => [actual !== undefined, 'to be defined'],
    toBeNull: (): Verdict => [actual === null, 'to be null'],
    toBeTruthy: (): Verdict => [Boolean(actual), 'to be truthy'],
    toBeFalsy: (): Verdict => [!actual, 'to be falsy'],
    toBeTypeOf: (type: string): Verdict => [typeof actual === type, `to be of type ${type}`],
    toThrow: (want?: ErrorWanted): Verdict => {
      const { threw, error } = thrownBy(actual as () => unknown)
      return [threw && thrownMatches(error, want), `to throw ${want === undefined ? '' : show(want)}`]
    },
  }
}

type Matchers = ReturnType<typeof matchers>
type Assertions = { [K in keyof Matchers]: (...args: Parameters<Matchers[K]>) => void }
type AsyncAssertions = { toThrow: (want?: ErrorWanted) => Promise<void> }

export interface Expectation extends Assertions {
  not: Assertions
  rejects: AsyncAssertions
}

function fail(actual: unknown, wanted: string, negated: boolean, message: string | undefined): never {
  const text = `expected ${show(actual)} ${negated ? 'not ' : ''}${wanted}`
  throw new AssertionError({ message: message ? `${message}: ${text}` : text, actual, operator: negated ? 'not' : 'expect' })
}

function assertions(actual: unknown, negated: boolean, message: string | undefined): Assertions {
  const all = matchers(actual)
  const out = {} as Record<string, (...args: unknown[]) => void>
  for (const [name, check] of Object.entries(all) as Array<[string, (...args: unknown[]) => [boolean, string]]>) {
    out[name] = (...args) => {
      const [held, wanted] = check(...args)
      if (held === negated) fail(actual, wanted, negated, message)
    }
  }
  return out as Assertions
}

async function rejection(actual: unknown): Promise<{ rejected: boolean; error: unknown }> {
  try {
    await (typeof actual === 'function' ? (actual as () => unknown)() : actual)
  } catch (error) {
    return { rejected: true, error }
  }
  return { rejected: false, error: undefined }
}

interface Expect {
  (actual: unknown, message?: string): Expectation
  any(type: unknown): unknown
  arrayContaining(items: readonly unknown[]): unknown
}

/** `expect(actual, message?)` with vitest's matchers, `.not` and `.rejects.toThrow`. */
export const expect: Expect = Object.assign(
  (actual: unknown, message?: string): Expectation => ({
    ...assertions(actual, false, message),
    not: assertions(actual, true, message),
    rejects: {
      async toThrow(want?: ErrorWanted) {
        const { rejected, error } = await rejection(actual)
        if (!rejected || !thrownMatches(error, want))
          fail(rejected ? error : actual, `to reject${want === undefined ? '' : ` with ${show(want)}`}`, false, message)
      },
    },
  }),
  {
    any: (type: unknown): unknown => new AnyOf(type),
    arrayContaining: (items: readonly unknown[]): unknown => new ArrayContaining(items),
  },
)
