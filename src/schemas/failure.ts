/**
 * Validation failure messages. WordPress distinguishes a plain `false` ("Invalid parameter.",
 * no details) from an error object with its own code; valibot issues only carry a message, so
 * the code travels inside it.
 */
export type { ParamFailure } from '../http/errors.js'

const SEP = '\u0001'
export const INVALID = 'Invalid parameter.'

/** A message carrying a WordPress error code; `{name}` is replaced by the parameter's name. */
export const failure = (code: string, text: string) => `${SEP}${code}${SEP}${text}`

/**
 * A failure of one member of an object parameter, reported under the member's name (the
 * parameter's name followed by `at`), as PHP-style names say it:
 * `failureAt('[ticket_url]', 'rest_invalid_param', '{name} is not an http or https URL.')`
 * on `custom_fields` reports `custom_fields[ticket_url]`.
 */
export const failureAt = (at: string, code: string, text: string) => `${failure(code, text)}${SEP}${at}`

export function decodeFailure(name: string, message: string): { message: string; code?: string; name: string } {
  if (!message.startsWith(SEP)) return { message: INVALID, name }
  const [, code, text = '', at = ''] = message.split(SEP)
  return { code, message: text.replaceAll('{name}', name + at), name: name + at }
}
