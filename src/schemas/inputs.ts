/**
 * Request-side pieces /doc publishes as components, so that generated clients type nested
 * write data with the real object shapes. Request bodies are components named after their
 * operation (`venueCreate`, `organizerCreate`), which nested venue and organizer data reuse:
 * the resource validates those objects with the very same parameters.
 */
import type { JsonSchema } from './wire.js'

export const inputRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

export const inputComponents: Record<string, JsonSchema> = {
  LinkedRef: {
    type: 'object',
    description: 'An existing record by ID.',
    properties: { id: { type: 'integer', minimum: 1 } },
    required: ['id'],
  },
}

/** An ID, a comma list of IDs, `{id}`, the data of a new record, a list of those, or null for none. */
export function linkedInput(createOp: 'venueCreate' | 'organizerCreate'): JsonSchema {
  const one = [
    { type: 'integer', minimum: 1 },
    { type: 'string', description: 'An ID or comma-separated IDs.' },
    inputRef('LinkedRef'),
    inputRef(createOp),
  ]
  return { anyOf: [...one, { type: 'array', items: { anyOf: one } }, { type: 'null' }] }
}

/** Category or tag IDs, slugs or names: one, a comma list, a list, or null for none. */
export const termsInput: JsonSchema = {
  anyOf: [{ type: 'array', items: { type: ['integer', 'string'] } }, { type: 'integer' }, { type: 'string' }, { type: 'null' }],
}
