/** Types of checks.mjs for the vitest wrappers. */
export const CHECK_NAMES: string[]
export const TOKEN: string
export const MAX_BODY_BYTES: number
export const AUTHOR_TOKEN: string
