/**
 * runEndpoint: the one place a request's parameters are validated, with the endpoint's
 * operation, before its handler sees them. A fake context carries only what it reads.
 */
import { describe, expect, it } from 'vitest'
import type { Context } from '../../../src/context.js'
import { ApiError } from '../../../src/http/errors.js'
import type { Params } from '../../../src/http/params.js'
import type { Reply } from '../../../src/resources/respond.js'
import type { Endpoint } from '../../../src/routes.js'
import { runEndpoint } from '../../../src/router/run.js'
import { buildSchemas } from '../../../src/schemas/index.js'

const schemas = buildSchemas({ languages: ['en', 'fr'], perPage: 10 })

const ctx = (parts: { params?: Params; path?: Params; body?: Params } = {}) => {
  const path = parts.path ?? {}
  const body = parts.body ?? {}
  return { params: { ...path, ...(parts.params ?? {}), ...body }, path, body } as unknown as Context
}

/** An endpoint whose handler records what it was given. */
function recorder(op: Endpoint['op'], more: Partial<Endpoint> = {}) {
  const calls: unknown[][] = []
  const run = async (...args: unknown[]): Promise<Reply> => {
    calls.push(args.slice(1))
    return { status: 200, body: null }
  }
  const endpoint = { op, summary: '', response: 'object', errors: [], run, ...more } as Endpoint
  return { endpoint, calls }
}

const apiError = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ApiError)
  const { status, code, message, extra } = error as ApiError
  return { status, code, message, extra }
}

describe('runEndpoint', () => {
  it('hands the handler the coerced input with defaults applied', async () => {
    const { endpoint, calls } = recorder('eventList')
    await runEndpoint(endpoint, ctx({ params: { per_page: '3', featured: 'true' } }), schemas)
    expect(calls[0]).toEqual([{ page: 1, per_page: 3, featured: true }, undefined])
  })

  it('lets the path name the record whatever the body says', async () => {
    const { endpoint, calls } = recorder('eventById')
    await runEndpoint(endpoint, ctx({ path: { id: '12' }, body: { id: '99' } }), schemas)
    expect(calls[0]?.[0]).toEqual({ id: 12 })
  })

  it('reports missing required parameters first, then every invalid one together', async () => {
    const create = recorder('eventCreate')
    expect(await apiError(runEndpoint(create.endpoint, ctx({ body: { title: 'x' } }), schemas))).toMatchObject({
      status: 400,
      code: 'rest_missing_callback_param',
      extra: { params: ['start_date', 'end_date'] },
    })
    const list = recorder('eventList')
    const failed = await apiError(runEndpoint(list.endpoint, ctx({ params: { page: '0', featured: 'maybe', search: '' } }), schemas))
    expect(failed).toMatchObject({ status: 400, code: 'rest_invalid_param', message: 'Invalid parameter(s): page, search, featured' })
    expect(create.calls.length + list.calls.length).toBe(0)
  })

  it('applies the endpoint prepare step to the raw parameters before validating', async () => {
    const { endpoint, calls } = recorder('eventList', { prepare: (_c, p) => ({ ...p, status: undefined }) })
    await runEndpoint(endpoint, ctx({ params: { status: 'any' } }), schemas)
    expect(calls[0]?.[0]).toEqual({ page: 1, per_page: 10 })
  })

  it('validates a targeted write in two steps: the target now, the fields when the handler asks', async () => {
    const { endpoint, calls } = recorder('eventUpdate', { target: 'eventBySlug' })
    const request = ctx({ path: { slug: 'old' }, params: { slug: 'from-query' }, body: { title: '', all_day: 'yes' } })
    await runEndpoint(endpoint, request, schemas)
    const [target, fields] = calls[0] as [unknown, () => unknown]
    expect(target).toEqual({ slug: 'old' })
    // The body's errors surface only now, after the handler found and authorised the record.
    expect(await apiError(Promise.resolve().then(fields))).toMatchObject({ message: 'Invalid parameter(s): title, all_day' })
  })

  it('reads a key the path captured from the body alone in the fields step', async () => {
    const { endpoint, calls } = recorder('eventUpdate', { target: 'eventBySlug' })
    await runEndpoint(endpoint, ctx({ path: { slug: 'old' }, params: { slug: 'from-query' } }), schemas)
    expect((calls[0]?.[1] as () => unknown)()).toEqual({})
    await runEndpoint(endpoint, ctx({ path: { slug: 'old' }, body: { slug: 'new-name' } }), schemas)
    expect((calls[1]?.[1] as () => unknown)()).toEqual({ slug: 'new-name' })
  })
})
