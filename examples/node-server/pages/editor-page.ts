/**
 * `/editor/`: create and edit an event through the API, in the browser (static/editor.js sends
 * the token the server printed as a bearer token). The form is rendered here, with one error
 * slot per field: the API's 400 answers (`data.params`, `data.details`) are shown next to the
 * field they name. The form does no validation of its own (`novalidate`): the API's rules are
 * the rules.
 */
import { html, plainText, type SafeHtml } from './html.js'
import { renderPage } from './layout.js'
import { API_PATH, TOKEN_COOKIE, type VisitorApi } from './visitor-api.js'

interface Named {
  id: number
  venue?: string
  organizer?: string
}

/** A labelled control with its hint and its error slot, tied together for screen readers. */
function field(name: string, label: string, control: SafeHtml, hint?: string): SafeHtml {
  return html`<div class="field" data-field="${name}">
    <label for="field-${name}">${label}</label>
    ${hint ? html`<p class="hint" id="hint-${name}">${hint}</p>` : ''} ${control}
    <p class="field-error" id="error-${name}" hidden></p>
  </div>`
}

const described = (name: string, hint: boolean) => (hint ? `hint-${name} error-${name}` : `error-${name}`)

function input(name: string, type: string, extra: SafeHtml | string = '', hint = false): SafeHtml {
  return html`<input id="field-${name}" name="${name}" type="${type}" aria-describedby="${described(name, hint)}" ${extra} />`
}

function select(name: string, options: Array<[string, string]>, hint = false): SafeHtml {
  return html`<select id="field-${name}" name="${name}" aria-describedby="${described(name, hint)}">
    ${options.map(([value, label]) => html`<option value="${value}">${label}</option>`)}
  </select>`
}

export async function editorPage(api: VisitorApi, siteTimezone: string): Promise<Response> {
  const [venues, organizers] = await Promise.all([
    api.get<{ venues: Named[] }>('/venues', { per_page: 100 }),
    api.get<{ organizers: Named[] }>('/organizers', { per_page: 100 }),
  ])
  const venueOptions: Array<[string, string]> = [
    ['', 'No venue'],
    ...(venues.status === 200 ? venues.body.venues : []).map((v): [string, string] => [String(v.id), plainText(v.venue ?? '')]),
  ]
  const organizerOptions: Array<[string, string]> = [
    ['', 'No organizer'],
    ...(organizers.status === 200 ? organizers.body.organizers : []).map((o): [string, string] => [
      String(o.id),
      plainText(o.organizer ?? ''),
    ]),
  ]
  const zones = Intl.supportedValuesOf('timeZone')
  if (!zones.includes(siteTimezone)) zones.unshift(siteTimezone)
  const body = html`<h1 id="editor-heading">Editor</h1>
    <div id="editor" data-api="${API_PATH}" data-cookie="${TOKEN_COOKIE}" data-timezone="${siteTimezone}">
      <section id="sign-in" aria-labelledby="sign-in-heading">
        <h2 id="sign-in-heading">Sign in</h2>
        <p>
          Paste the API token the server printed when it started (or one of <code>CALENDAR_API_TOKENS</code>). It stays in this browser tab
          only.
        </p>
        <form id="sign-in-form" novalidate>
          ${field('token', 'API token', input('token', 'password', html`autocomplete="off" spellcheck="false" required`))}
          <button type="submit" class="button">Sign in</button>
        </form>
      </section>
      <section id="event-editor" aria-labelledby="form-heading" hidden>
        <div class="editor-bar">
          <h2 id="form-heading">New event</h2>
          <button type="button" id="sign-out" class="button secondary">Sign out</button>
        </div>
        <div id="form-status" role="status" aria-live="polite"></div>
        <form id="event-form" novalidate>
          ${field('title', 'Title', input('title', 'text', html`required`))}
          ${field('start_date', 'Starts', input('start_date', 'datetime-local', html`required`))}
          ${field('end_date', 'Ends', input('end_date', 'datetime-local', html`required`))}
          <div class="field check" data-field="all_day">
            <input id="field-all_day" name="all_day" type="checkbox" aria-describedby="error-all_day" /><label for="field-all_day"
              >All-day event</label
            >
            <p class="field-error" id="error-all_day" hidden></p>
          </div>
          ${field(
            'timezone',
            'Time zone',
            select(
              'timezone',
              zones.map((z): [string, string] => [z, z]),
            ),
            'The dates above are read on this clock.',
          )}
          ${field(
            'status',
            'Visibility',
            select('status', [
              ['publish', 'Published'],
              ['draft', 'Draft (only editors see it)'],
            ]),
          )}
          ${field(
            'event_status',
            'Status',
            select('event_status', [
              ['scheduled', 'Scheduled'],
              ['postponed', 'Postponed'],
              ['canceled', 'Cancelled'],
            ]),
          )}
          ${field('event_status_reason', 'Reason for the status', input('event_status_reason', 'text'))}
          ${field(
            'attendance_mode',
            'Attendance',
            select('attendance_mode', [
              ['offline', 'In person'],
              ['online', 'Online'],
              ['mixed', 'In person and online'],
            ]),
          )}
          ${field('virtual_url', 'Online link', input('virtual_url', 'url', '', true), 'Where online attendees join (https://…).')}
          ${field('venue', 'Venue', select('venue', venueOptions))}
          ${field('organizer', 'Organizer', select('organizer', organizerOptions))}
          ${field('categories', 'Categories', input('categories', 'text', '', true), 'Comma-separated; new names create categories.')}
          ${field('cost', 'Cost', input('cost', 'text', '', true), 'For example 10, 5–15, or Free.')}
          ${field('website', 'Event website', input('website', 'url'))}
          ${field('description', 'Description', html`<textarea id="field-description" name="description" rows="6" aria-describedby="error-description"></textarea>`)}
          <div class="actions">
            <button type="submit" class="button" id="save">Create event</button> <a href="/editor/" class="button secondary">New event</a>
          </div>
        </form>
      </section>
    </div>
    <noscript><p>The editor needs JavaScript: it talks to the API from your browser.</p></noscript>`
  return renderPage({
    title: 'Editor',
    current: 'editor',
    scripts: ['/assets/editor.js'],
    body,
  })
}
