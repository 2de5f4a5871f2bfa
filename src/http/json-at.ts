/**
 * What `path` leads to in parsed JSON, or undefined where a step is not an object: answers
 * (the REST namespace's, read back by the CalDAV face; a TEC site's, read by the importer) are
 * read without trusting their shape.
 *
 * @example
 * at({ data: { params: { status: 'bad' } } }, 'data', 'params', 'status') // 'bad'
 */
export function at(json: unknown, ...path: string[]): unknown {
  let value = json
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}
