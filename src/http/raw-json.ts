/**
 * JSON text that is already serialized: a record's representation stitched from cached
 * fragments. `jsonResponse` writes it verbatim, as the whole body or as the items of a list's
 * array, so a page of fragments is joined by concatenation instead of being stringified again.
 */
export class RawJson {
  constructor(readonly text: string) {}

  /** Anything that still stringifies a body holding one gets the same JSON (slowly, but right). */
  toJSON(): unknown {
    return JSON.parse(this.text)
  }
}

const holdsRaw = (v: unknown) => v instanceof RawJson || (Array.isArray(v) && v.some((x) => x instanceof RawJson))

/**
 * `JSON.stringify(body)` except that RawJson values (the body itself, a top-level member, or an
 * item of a top-level array) are copied as they are. Bodies without any are stringified as usual.
 */
export function serializeJson(body: unknown): string {
  if (body instanceof RawJson) return body.text
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return JSON.stringify(body)
  const record = body as Record<string, unknown>
  const keys = Object.keys(record)
  if (!keys.some((k) => holdsRaw(record[k]))) return JSON.stringify(body)
  let out = ''
  for (const k of keys) {
    const v = record[k]
    let text: string | undefined
    if (v instanceof RawJson) text = v.text
    else if (Array.isArray(v)) text = `[${v.map((x) => (x instanceof RawJson ? x.text : (JSON.stringify(x) ?? 'null'))).join(',')}]`
    else text = JSON.stringify(v)
    // As JSON.stringify does: members whose value has no JSON form (undefined, functions) are left out.
    if (text === undefined) continue
    out += `${out ? ',' : ''}${JSON.stringify(k)}:${text}`
  }
  return `{${out}}`
}
