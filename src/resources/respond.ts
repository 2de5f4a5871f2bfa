/** Successful responses of resource handlers, before the router adds the standard headers. */
export interface Reply {
  status: number
  body: unknown
  headers?: Record<string, string>
  /** Methods this caller may use on this very record, when narrower than the route's gates. */
  allow?: string[]
  /** A non-JSON body (an iCalendar feed) and its media type. */
  text?: { body: string; type: string }
  /**
   * A write's record as its single read answers this caller (a write reply leaves out what only
   * single reads show, such as `json_ld`): the reply's strong ETag hashes it, so the router need
   * not read the record again after the commit. Absent: the router reads it.
   */
  single?: unknown
}

export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, ...(headers ? { headers } : {}) })
export const created = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 201, body, ...(headers ? { headers } : {}) })

/** Totals headers of every list: TEC's names, and WordPress's that generic clients (wpapi) page by. */
export const totals = (total: number, totalPages: number) => ({
  'X-TEC-Total': String(total),
  'X-TEC-TotalPages': String(totalPages),
  'X-WP-Total': String(total),
  'X-WP-TotalPages': String(totalPages),
})

/** `Allow` for one post: reading for everyone who got this far, writing for who may modify it. */
export const recordAllow = (mayModify: boolean) => (mayModify ? ['GET', 'DELETE', 'POST', 'PUT', 'PATCH'] : ['GET'])
