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

export function decodeFailure(name: string, message: string): { message: string; code?: string } {
  if (!message.startsWith(SEP)) return { message: INVALID }
  const [, code, text = ''] = message.split(SEP)
  return { code, message: text.replaceAll('{name}', name) }
}
