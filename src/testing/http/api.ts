/**
 * What the shipped HTTP suites need from a test runner, and no more: `describe` and `it` as
 * vitest, node:test, mocha or jest hand them out. The suites register through `SuiteApi`, which
 * adds what those runners spell differently: a per-test cleanup (`onTestFinished`), table tests
 * (`it.each`) and a longer timeout for the few slow cases.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

type TestFn = () => Promise<void>

/**
 * A runner's `describe` and `it`. Both vitest's and node:test's fit as they are; `it` is called
 * as `it(name, fn)`, or `it(name, { timeout }, fn)` for a case that needs longer than the
 * runner's default.
 */
export interface ConformanceApi {
  describe: (name: string, fn: () => void) => unknown
  it: {
    (name: string, fn: TestFn): unknown
    (name: string, options: { timeout?: number }, fn: TestFn): unknown
  }
}

/** `it` as the suites call it (vitest's spelling, implemented over any runner's). */
export interface SuiteIt {
  (name: string, fn: TestFn, timeout?: number): void
  (name: string, options: { timeout?: number }, fn: TestFn): void
  /** Table cases: `%j`, `%s`, `%d` and `$key` in the name take the case's values, as vitest writes them. */
  // vitest's own signature: a case is a tuple of values of any type.
  each<T extends any[] | [any]>(cases: readonly T[]): (name: string, fn: (...args: T) => Promise<void>) => void
  each<T extends object>(cases: readonly T[]): (name: string, fn: (item: T) => Promise<void>) => void
}

export interface SuiteApi {
  describe: (name: string, fn: () => void) => void
  it: SuiteIt
}

/**
 * The cleanups of the test running now. Carried by the test's async context rather than a
 * module variable, so tests a runner runs concurrently each close only what they opened.
 */
const cleanups = new AsyncLocalStorage<Array<() => unknown>>()

/** Runs `fn` when the current test ends, passed or failed (last registered first). */
export function onTestFinished(fn: () => unknown): void {
  const list = cleanups.getStore()
  if (!list) throw new Error('onTestFinished: called outside a test of the conformance suites')
  list.push(fn)
}

async function withCleanups(fn: TestFn): Promise<void> {
  const list: Array<() => unknown> = []
  let failure: unknown = null
  try {
    await cleanups.run(list, fn)
  } catch (err) {
    failure = err
  }
  for (const cleanup of list.reverse()) {
    try {
      await cleanup()
    } catch (err) {
      // The test's own failure says more; a cleanup's is reported only when the test passed.
      failure ??= err
    }
  }
  if (failure !== null)
    throw failure instanceof Error
      ? failure
      : new Error(typeof failure === 'string' ? failure : 'a cleanup threw a value that is not an Error', { cause: failure })
}

/** A case's values written into a table test's name, the way vitest writes them. */
export function caseName(template: string, values: readonly unknown[]): string {
  const item = values[0]
  let i = 0
  const named = template.replace(/\$([A-Za-z_]\w*)/g, (whole, key: string) => {
    if (item === null || typeof item !== 'object' || !(key in item)) return whole
    const value = (item as Record<string, unknown>)[key]
    return typeof value === 'string' ? `'${value}'` : JSON.stringify(value)
  })
  return named.replace(/%[sdijo%]/g, (spec) => {
    if (spec === '%%') return '%'
    const value = values[i++]
    if (spec === '%s') return String(value)
    if (spec === '%d' || spec === '%i') return String(Number(value))
    return JSON.stringify(value)
  })
}

/** The suites' `describe`/`it` over a runner's. */
export function suiteApi(t: ConformanceApi): SuiteApi {
  const register = (name: string, fn: TestFn, timeout: number | undefined) => {
    const run = () => withCleanups(fn)
    if (timeout === undefined) t.it(name, run)
    else t.it(name, { timeout }, run)
  }
  const it = ((name: string, a: TestFn | { timeout?: number }, b?: TestFn | number) => {
    if (typeof a === 'function') register(name, a, typeof b === 'number' ? b : undefined)
    else register(name, b as TestFn, a.timeout)
  }) as SuiteIt
  it.each = (cases: readonly unknown[]) => (name: string, fn: (...args: unknown[]) => Promise<void>) => {
    for (const item of cases) {
      const args = Array.isArray(item) ? item : [item]
      register(caseName(name, args), () => fn(...args), undefined)
    }
  }
  return { describe: (name, fn) => void t.describe(name, fn), it }
}
