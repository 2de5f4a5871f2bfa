import { describe, expect, it } from 'vitest'
import {
  ApiError,
  forbidden,
  internalError,
  invalidJson,
  invalidParam,
  invalidParams,
  missingParams,
  noRoute,
  payloadTooLarge,
  storageUnavailable,
  unsupportedMediaType,
  type ParamFailure,
} from '../../../src/http/errors.js'

describe('ApiError', () => {
  it('is an Error whose body is the WordPress envelope, with extra data beside the status', () => {
    const e = new ApiError(409, 'some_code', 'Some message.', { param: 'x' })
    expect(e).toBeInstanceOf(Error)
    expect(e.name).toBe('ApiError')
    expect(e.message).toBe('Some message.')
    expect(e.toBody()).toEqual({ code: 'some_code', message: 'Some message.', data: { status: 409, param: 'x' } })
  })
})

describe('error factories', () => {
  const cases: Array<[string, ApiError, number, string]> = [
    ['noRoute', noRoute(), 404, 'rest_no_route'],
    ['forbidden, signed in', forbidden(true), 403, 'rest_forbidden'],
    ['forbidden, anonymous', forbidden(false), 401, 'rest_forbidden'],
    ['invalidJson', invalidJson('Syntax error'), 400, 'rest_invalid_json'],
    ['payloadTooLarge', payloadTooLarge(512), 413, 'rest_payload_too_large'],
    ['unsupportedMediaType', unsupportedMediaType('text/xml'), 415, 'rest_unsupported_media_type'],
    ['storageUnavailable', storageUnavailable(), 503, 'storage_unavailable'],
    ['internalError', internalError(), 500, 'internal_error'],
    ['missingParams', missingParams(['title']), 400, 'rest_missing_callback_param'],
  ]
  for (const [label, error, status, code] of cases) {
    it(`${label} → ${status} ${code}`, () => {
      expect(error.toBody()).toMatchObject({ code, data: { status } })
    })
  }

  it('words the messages WordPress clients show', () => {
    expect(noRoute().message).toBe('No route was found matching the URL and request method.')
    expect(forbidden(true).message).toBe('Sorry, you are not allowed to do that.')
    expect(invalidJson('Syntax error').toBody().data).toEqual({ status: 400, json_error_code: 4, json_error_message: 'Syntax error' })
    expect(payloadTooLarge(512).message).toBe('The request body is larger than the limit of 512 bytes.')
    expect(unsupportedMediaType('text/xml').message).toContain('text/xml')
  })

  it('lists missing parameters in the message and in data.params', () => {
    const e = missingParams(['title', 'start_date', 'end_date'])
    expect(e.message).toBe('Missing parameter(s): title, start_date, end_date')
    expect(e.toBody().data.params).toEqual(['title', 'start_date', 'end_date'])
  })
})

describe('invalidParams', () => {
  it('names every parameter in order, with details [] when no failure has a code', () => {
    const e = invalidParams(
      new Map<string, ParamFailure>([
        ['status', { message: 'Invalid parameter.' }],
        ['start_date', { message: 'Invalid parameter.' }],
      ]),
    )
    expect(e.toBody()).toEqual({
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): status, start_date',
      data: { status: 400, params: { status: 'Invalid parameter.', start_date: 'Invalid parameter.' }, details: [] },
    })
  })

  it('gives details only for the failures that carry a code', () => {
    const e = invalidParams(
      new Map<string, ParamFailure>([
        ['timezone', { message: 'Invalid parameter.' }],
        ['all_day', { message: 'all_day is not of type boolean.', code: 'rest_invalid_type' }],
      ]),
    )
    expect(e.toBody().data.details).toEqual({
      all_day: { code: 'rest_invalid_type', message: 'all_day is not of type boolean.', data: { param: 'all_day' } },
    })
  })

  it('invalidParam reports one parameter, "Invalid parameter." unless told otherwise', () => {
    expect(invalidParam('slug').toBody().data).toEqual({ status: 400, params: { slug: 'Invalid parameter.' }, details: [] })
    expect(invalidParam('x', { message: 'x is bad.', code: 'rest_x' }).toBody().data.details).toEqual({
      x: { code: 'rest_x', message: 'x is bad.', data: { param: 'x' } },
    })
  })
})
