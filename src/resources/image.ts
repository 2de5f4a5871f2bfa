/** The `image` parameter: an absolute URL kept as given, or an ID the host resolves. */
import { invalidParam } from '../http/errors.js'
import type { ImageRef } from '../storage/types.js'
import type { Context } from '../context.js'

export async function resolveImage(ctx: Context, value: unknown, name = 'image'): Promise<ImageRef | null> {
  if (value === undefined || value === null || value === '' || value === 0 || value === '0') return null
  if (typeof value === 'string' && !/^\d+$/.test(value)) return { url: value }
  const id = Number(value)
  const resolver = ctx.options.resolveImage
  if (!resolver) {
    throw invalidParam(name, {
      message: 'Image IDs need a resolveImage option; send an absolute image URL.',
      code: 'rest_image_id_unsupported',
    })
  }
  const found = await resolver(id)
  if (!found) throw invalidParam(name, { message: `Image ${id} does not exist.`, code: 'rest_image_not_found' })
  return { ...found, id }
}
