/**
 * The `npm start` server's CALENDAR_CUSTOM_FIELDS: declarations as JSON from the environment,
 * written and filtered over HTTP; a bad value stops the start with a message naming the variable.
 */
import { describe, expect, it } from 'vitest'
import { startServer } from '../examples/node-server/server.js'
import { customFields } from '../examples/shared/options.js'

const FIELDS = JSON.stringify([
  { key: 'ticket_url', label: 'Tickets', type: 'url' },
  { key: 'genre', label: 'Genre', type: 'dropdown', options: ['jazz', 'folk'] },
])

describe('examples: CALENDAR_CUSTOM_FIELDS', () => {
  it('declares the fields the server reads, writes and filters', async () => {
    const s = await startServer({
      PORT: '0',
      HOST: '127.0.0.1',
      CALENDAR_DEMO: 'off',
      CALENDAR_STORAGE: 'memory',
      CALENDAR_API_TOKENS: 'admintoken:administrator',
      CALENDAR_CUSTOM_FIELDS: FIELDS,
    })
    try {
      const root = `http://127.0.0.1:${s.port}/wp-json/calendar/events/v1`
      const created = await fetch(`${root}/events`, {
        method: 'POST',
        headers: { authorization: 'Bearer admintoken', 'content-type': 'application/json' },
        body: JSON.stringify({
          title: 'Gig',
          start_date: 'tomorrow 7pm',
          end_date: 'tomorrow 10pm',
          status: 'publish',
          custom_fields: { ticket_url: 'https://t.example/1', genre: 'jazz' },
        }),
      })
      expect(created.status).toBe(201)
      const event = (await created.json()) as { id: number; custom_fields: Record<string, { label: string; value: unknown }> }
      expect(event.custom_fields.ticket_url).toEqual({ label: 'Tickets', value: 'https://t.example/1' })
      const listed = (await (await fetch(`${root}/events?custom_fields[genre]=jazz`)).json()) as { events: Array<{ id: number }> }
      expect(listed.events.map((e) => e.id)).toEqual([event.id])
    } finally {
      await new Promise<void>((resolve) => s.server.close(() => resolve()))
      await s.storage.close?.()
    }
  })

  it('stops the start on a bad value, naming the variable', async () => {
    expect(customFields(undefined)).toEqual([])
    expect(() => customFields('[{key:1}]')).toThrow(/^CALENDAR_CUSTOM_FIELDS is not JSON/)
    expect(() => customFields('[{"key":"x","label":"X","type":"colour"}]')).toThrow(
      /^CALENDAR_CUSTOM_FIELDS: customFields\[0\]\.type must be one of text, textarea/,
    )
    await expect(startServer({ PORT: '0', CALENDAR_STORAGE: 'memory', CALENDAR_CUSTOM_FIELDS: '{"key":"x"}' })).rejects.toThrow(
      /CALENDAR_CUSTOM_FIELDS: customFields must be an array/,
    )
  })
})
