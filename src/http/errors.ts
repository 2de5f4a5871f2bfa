/**
 * Errors travel as `ApiError` and leave as the WordPress REST envelope
 * `{ code, message, data: { status, ... } }` that TEC clients parse.
 */
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'ApiError'
  }

  toBody(): { code: string; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.extra } }
  }
}

export const noRoute = () => new ApiError(404, 'rest_no_route', 'No route was found matching the URL and request method.')

export const forbidden = (loggedIn: boolean) =>
  new ApiError(loggedIn ? 403 : 401, 'rest_forbidden', 'Sorry, you are not allowed to do that.')

export const invalidJson = (detail: string) =>
  new ApiError(400, 'rest_invalid_json', 'Invalid JSON body passed.', {
    json_error_code: 4,
    json_error_message: detail,
  })

export const payloadTooLarge = (limit: number) =>
  new ApiError(413, 'rest_payload_too_large', `The request body is larger than the limit of ${limit} bytes.`)

export const unsupportedMediaType = (type: string) =>
  new ApiError(
    415,
    'rest_unsupported_media_type',
    `Request bodies of type ${type} are not supported; send application/json or application/x-www-form-urlencoded.`,
  )

export const storageUnavailable = () =>
  new ApiError(503, 'storage_unavailable', 'The calendar storage is temporarily unavailable. Please retry shortly.')

export const internalError = () => new ApiError(500, 'internal_error', 'An unexpected error occurred.')

export const missingParams = (names: string[]) =>
  new ApiError(400, 'rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, { params: names })

/** One failed parameter: a plain "Invalid parameter." or an error object with its own code. */
export interface ParamFailure {
  message: string
  code?: string
}

export function invalidParams(failures: Map<string, ParamFailure>): ApiError {
  const params: Record<string, string> = {}
  const details: Record<string, unknown> = {}
  for (const [name, f] of failures) {
    params[name] = f.message
    if (f.code) details[name] = { code: f.code, message: f.message, data: { param: name } }
  }
  // WordPress emits an empty PHP array (JSON []) when no failure carried an error object.
  return new ApiError(400, 'rest_invalid_param', `Invalid parameter(s): ${[...failures.keys()].join(', ')}`, {
    params,
    details: Object.keys(details).length ? details : [],
  })
}

/** A single invalid parameter reported by resource logic (e.g. a slug that names nothing). */
export const invalidParam = (name: string, failure: ParamFailure = { message: 'Invalid parameter.' }) =>
  invalidParams(new Map([[name, failure]]))
