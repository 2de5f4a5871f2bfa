/**
 * The shipped suites' own `expect` (src/testing/http/expect.ts) and runner glue (api.ts): each
 * matcher passes where vitest's passes and throws an AssertionError where vitest's fails, so a
 * conformance case can fail for a stranger's backend exactly as it does here.
 */
import { AssertionError } from 'node:assert'
import type * as nodeTest from 'node:test'
import { describe, expect as vexpect, it } from 'vitest'
import { expect } from '../../../src/testing/http/expect.js'
import { caseName, onTestFinished, suiteApi, type ConformanceApi } from '../../../src/testing/http/api.js'

// Both runners' describe and it fit the conformance suites as they are (checked by the compiler).
export const fromVitest: ConformanceApi = { describe, it }
export const fromNodeTest = (api: { describe: typeof nodeTest.describe; it: typeof nodeTest.it }): ConformanceApi => api

const fails = (fn: () => void) => vexpect(fn).toThrow(AssertionError)

describe('the conformance suites expect', () => {
  it('toEqual ignores undefined properties and compares recursively; toBe is identity', () => {
    expect({ a: 1, b: undefined, c: [1, { d: 'x' }] }).toEqual({ a: 1, c: [1, { d: 'x' }] })
    fails(() => expect({ a: 1, c: [1, { d: 'x' }] }).toEqual({ a: 1, c: [1, { d: 'y' }] }))
    fails(() => expect([1, 2]).toEqual([1, 2, 3]))
    fails(() => expect({ a: 1 }).toEqual({ a: 1, b: 2 }))
    fails(() => expect({}).toBe({}))
    expect(NaN).toBe(NaN)
    fails(() => expect(1).not.toBe(1))
  })

  it('toMatchObject, toContain, toHaveLength, toMatch and toHaveProperty', () => {
    expect({ a: 1, b: { c: 2, d: 3 } }).toMatchObject({ b: { c: 2 } })
    fails(() => expect({ a: 1 }).toMatchObject({ a: 2 }))
    fails(() => expect([{ a: 1 }]).toMatchObject([{ a: 1 }, { a: 2 }]))
    expect('abc').toContain('b')
    expect([1, 2]).toContain(2)
    fails(() => expect([1, 2]).toContain(3))
    fails(() => expect('abc').not.toContain('a'))
    expect([1, 2, 3]).toHaveLength(3)
    fails(() => expect('ab').toHaveLength(3))
    expect('2026-11-21').toMatch(/^\d{4}-/)
    fails(() => expect('x').toMatch('y'))
    expect({ a: { b: 0 } }).toHaveProperty('a.b', 0)
    fails(() => expect({ a: {} }).toHaveProperty('a.b'))
    fails(() => expect({ a: 1 }).not.toHaveProperty('a'))
  })

  it('comparisons, kinds and thrown errors', async () => {
    expect(2).toBeGreaterThan(1)
    fails(() => expect(1).toBeGreaterThan(1))
    expect(1).toBeLessThanOrEqual(1)
    fails(() => expect(0.3).toBeCloseTo(0.32))
    expect(0.3).toBeCloseTo(0.304)
    fails(() => expect(null).toBeUndefined())
    fails(() => expect(undefined).toBeDefined())
    fails(() => expect(0).toBeNull())
    fails(() => expect('1').toBeTypeOf('number'))
    expect(() => {
      throw new TypeError('bad thing')
    }).toThrow(/bad/)
    fails(() => expect(() => undefined).toThrow())
    await expect(Promise.reject(new Error('nope'))).rejects.toThrow('nope')
    await vexpect(expect(Promise.resolve(1)).rejects.toThrow()).rejects.toThrow(AssertionError)
  })

  it('asymmetric matchers and the message given first', () => {
    expect({ id: 3, tags: ['a', 'b'] }).toEqual({ id: expect.any(Number), tags: expect.arrayContaining(['b']) })
    fails(() => expect({ id: '3' }).toEqual({ id: expect.any(Number) }))
    fails(() => expect(['a']).toEqual(expect.arrayContaining(['b'])))
    vexpect(() => expect(500, 'the answer').toBe(200)).toThrow(/^the answer: expected 500 to be 200/)
  })
})

describe('the conformance suites runner glue', () => {
  it('names table cases as vitest does', () => {
    vexpect(caseName('cost %j shows %s', [['1$'], 'x'])).toBe('cost ["1$"] shows x')
    vexpect(caseName('$name: stored', [{ name: 'event website' }])).toBe("'event website': stored")
  })

  it('runs a case in its own cleanup context, cleanups last first, even when it fails', async () => {
    const order: string[] = []
    const registered: Array<() => Promise<void>> = []
    const api = suiteApi({
      describe: (_n, fn) => fn(),
      it: (_n: string, a: unknown, b?: unknown) => void registered.push((b ?? a) as () => Promise<void>),
    })
    api.it('passes', async () => {
      onTestFinished(() => void order.push('first'))
      onTestFinished(() => void order.push('second'))
    })
    api.it('fails', async () => {
      onTestFinished(() => void order.push('closed'))
      throw new Error('the case failed')
    })
    await registered[0]!()
    await vexpect(registered[1]!()).rejects.toThrow('the case failed')
    vexpect(order).toEqual(['second', 'first', 'closed'])
    vexpect(() => onTestFinished(() => undefined)).toThrow(/outside a test/)
  })
})
