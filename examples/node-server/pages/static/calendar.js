// The calendar page: FullCalendar's month, week and list views reading the JSON API.
// Each event is shown on its own wall clock (the API's start_date/end_date in the event's time
// zone), as the event pages do, so a 19:00 concert reads 19:00 wherever the visitor is.
;(function () {
  var el = document.getElementById('calendar')
  if (!el || typeof FullCalendar === 'undefined') return
  document.documentElement.classList.add('js')
  var api = el.getAttribute('data-api')
  var status = document.getElementById('calendar-status')
  var category = document.getElementById('filter-category')
  var venue = document.getElementById('filter-venue')
  var narrow = window.matchMedia('(max-width: 40rem)').matches

  // Titles are HTML in the API (WordPress stores `&amp;`): FullCalendar wants text. Tags are
  // dropped as text and entities decoded by a textarea, which never parses markup into
  // elements, so nothing in a title can load or run (the pages' plainText does the same).
  var decoder = document.createElement('textarea')
  function text(html) {
    decoder.innerHTML = String(html).replace(/<[^>]*>?/g, '')
    return decoder.value.trim()
  }
  function wall(s) {
    return s.replace(' ', 'T')
  }
  function dayAfter(date) {
    var d = new Date(date + 'T00:00:00Z')
    d.setUTCDate(d.getUTCDate() + 1)
    return d.toISOString().slice(0, 10)
  }
  function apiDate(d) {
    return d.toISOString().slice(0, 19).replace('T', ' ')
  }
  function say(message) {
    if (status) status.textContent = message
  }

  // `America/New_York` → `New York`: the label of a time when the events shown mix zones.
  function zoneName(zone) {
    return String(zone || 'UTC')
      .split('/')
      .pop()
      .replace(/_/g, ' ')
  }

  function toEvent(e) {
    var cancelled = e.event_status === 'canceled'
    var prefix = cancelled ? 'Cancelled: ' : e.event_status === 'postponed' ? 'Postponed: ' : ''
    var out = {
      id: String(e.id),
      title: prefix + text(e.title),
      url: new URL(e.url, location.href).pathname + new URL(e.url, location.href).search,
      classNames: cancelled ? ['is-cancelled'] : [],
      extendedProps: { zone: e.timezone || 'UTC', zoneLabel: '' },
    }
    if (e.all_day) {
      out.allDay = true
      out.start = e.start_date.slice(0, 10)
      out.end = dayAfter(e.end_date.slice(0, 10))
    } else {
      out.start = wall(e.start_date)
      out.end = wall(e.end_date)
    }
    return out
  }

  // Times are each event's wall clock: when the events shown are in more than one zone, each
  // says which (09:00 New York beside 19:00 Berlin would otherwise read as the earlier one).
  function labelZones(events) {
    var zones = {}
    events.forEach(function (e) {
      zones[e.extendedProps.zone] = true
    })
    var mixed = Object.keys(zones).length > 1
    events.forEach(function (e) {
      e.extendedProps.zoneLabel = mixed && !e.allDay ? zoneName(e.extendedProps.zone) : ''
    })
    return events
  }

  // Every page of the visible range (the API pages at 50 here).
  function load(info, success, failure) {
    var params = new URLSearchParams({
      start_date: apiDate(info.start),
      end_date: apiDate(new Date(info.end.getTime() - 1000)),
      per_page: '50',
    })
    if (category && category.value) params.set('categories', category.value)
    if (venue && venue.value) params.set('venue', venue.value)
    // Filters from links (a tag, an organizer) that have no control on the page.
    new URLSearchParams(el.getAttribute('data-extra') || '').forEach(function (value, key) {
      params.set(key, value)
    })
    var events = []
    function page(n) {
      params.set('page', String(n))
      // The visitor's last write (the editor keeps it in this cookie): with read replicas, the
      // calendar shows it whichever server answers.
      var kept = /(?:^|; )calendar_bookmark=([^;]*)/.exec(document.cookie)
      var headers = { Accept: 'application/json' }
      if (kept) headers['X-Calendar-Bookmark'] = decodeURIComponent(kept[1])
      return fetch(api + '/events?' + params, { headers: headers })
        .then(function (res) {
          // Past the last page the API answers 404 with an empty archive: nothing more.
          if (res.status === 404 && n > 1) return null
          if (!res.ok) throw new Error('The events could not be loaded (HTTP ' + res.status + ').')
          return res.json()
        })
        .then(function (body) {
          if (!body) return events
          events = events.concat(body.events.map(toEvent))
          return n < (body.total_pages || 1) ? page(n + 1) : labelZones(events)
        })
    }
    page(1).then(
      function (all) {
        say(all.length === 1 ? '1 event shown.' : all.length + ' events shown.')
        success(all)
      },
      function (error) {
        say(error.message)
        failure(error)
      },
    )
  }

  var initialView = el.getAttribute('data-view') || (narrow ? 'listMonth' : 'dayGridMonth')
  var calendar = null
  calendar = new FullCalendar.Calendar(el, {
    initialView: initialView,
    initialDate: el.getAttribute('data-date') || undefined,
    // Wall-clock times as given: no conversion to the visitor's zone.
    timeZone: 'UTC',
    firstDay: 1,
    height: 'auto',
    nowIndicator: false,
    headerToolbar: narrow
      ? { left: 'prev,today,next', center: 'title', right: 'dayGridMonth,timeGridWeek,listMonth' }
      : { left: 'prev,next today', center: 'title', right: 'dayGridMonth,timeGridWeek,listMonth' },
    buttonText: { today: 'Today', month: 'Month', week: 'Week', list: 'List' },
    buttonHints: { prev: 'Previous $0', next: 'Next $0', today: 'This $0' },
    eventTimeFormat: { hour: '2-digit', minute: '2-digit', hour12: false },
    views: {
      // On a phone the list shows start times only: the column stays one line wide.
      listMonth: { displayEventEnd: !narrow },
      // On a phone a month cell is a few letters wide: it shows a dot per event (the title stays
      // for screen readers) and the agenda below the grid has the titles. The days of the months
      // before and after stay empty: the agenda is the month's, so a dot there had no title.
      dayGridMonth: narrow ? { eventDisplay: 'list-item', dayMaxEvents: 3, showNonCurrentDates: false } : {},
      // "Mon 23" on a phone (seven headers fit its width); "Mon, Nov 23" on a desktop, the month
      // by name: "11/9" reads as 11 September on a European site.
      timeGridWeek: {
        dayHeaderFormat: narrow ? { weekday: 'short', day: 'numeric' } : { weekday: 'short', day: 'numeric', month: 'short' },
      },
    },
    slotLabelFormat: { hour: '2-digit', minute: '2-digit', hour12: false },
    events: load,
    // The zone beside the time when the events shown mix zones (list, week and agenda).
    eventDidMount: function (arg) {
      var label = arg.event.extendedProps.zoneLabel
      if (!label) return
      var where = arg.el.querySelector('.fc-list-event-time, .fc-event-time')
      if (!where) return
      var span = document.createElement('span')
      span.className = 'zone'
      span.textContent = ' ' + label
      where.appendChild(span)
    },
    eventsSet: function () {
      agenda()
      scrollToFirst()
    },
    // A day cell is named by its date link; with events in it the visible text is more than
    // that name (axe: label-content-name-mismatch), so the cell is named by its content.
    dayCellDidMount: function (arg) {
      arg.el.removeAttribute('aria-labelledby')
    },
    datesSet: function (info) {
      fitHeight(info.view.type)
      // The toolbar's chevrons are drawn by an icon font with role=img and no text: the buttons
      // carry the names ("Next month"), the icons are decoration.
      setTimeout(function () {
        el.querySelectorAll('.fc-icon').forEach(function (icon) {
          icon.setAttribute('aria-hidden', 'true')
        })
      }, 0)
      // Keep the address shareable: the view and the month shown.
      var url = new URL(location.href)
      url.searchParams.set('view', info.view.type)
      url.searchParams.set('date', info.view.currentStart.toISOString().slice(0, 10))
      history.replaceState(null, '', url)
    },
  })
  // The week's time grid scrolls inside a box the height of the window (with `auto` it would be
  // 24 hours tall and open at midnight); the other views grow with their content.
  function fitHeight(type) {
    var want = type.indexOf('timeGrid') === 0 ? Math.max(420, window.innerHeight - 120) : 'auto'
    if (calendar && calendar.getOption('height') !== want) calendar.setOption('height', want)
  }

  // A week opens at its first event's hour (once per week shown: a refetch does not move it).
  var scrolledFor = ''
  function scrollToFirst() {
    var view = calendar.view
    if (view.type.indexOf('timeGrid') !== 0) return
    var key = view.type + view.currentStart.toISOString()
    var first = null
    calendar.getEvents().forEach(function (e) {
      if (e.allDay || e.start < view.activeStart || e.start >= view.activeEnd) return
      var minutes = e.start.getUTCHours() * 60 + e.start.getUTCMinutes()
      if (first === null || minutes < first) first = minutes
    })
    if (first === null || scrolledFor === key) return
    scrolledFor = key
    var hour = Math.max(0, Math.floor(first / 60) - 1)
    calendar.scrollToTime((hour < 10 ? '0' : '') + hour + ':00:00')
  }

  // Below the grid on a phone: the month's or week's events by day, with their titles in full.
  var agendaBox = document.createElement('section')
  agendaBox.id = 'calendar-agenda'
  agendaBox.setAttribute('aria-labelledby', 'calendar-agenda-heading')
  el.parentNode.insertBefore(agendaBox, el.nextSibling)
  var dayFormat = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' })
  var timeFormat = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: 'UTC' })
  function agenda() {
    var view = calendar.view
    agendaBox.textContent = ''
    if (!narrow || view.type.indexOf('list') === 0) return (agendaBox.hidden = true)
    agendaBox.hidden = false
    var heading = document.createElement('h2')
    heading.id = 'calendar-agenda-heading'
    heading.textContent = view.type === 'timeGridWeek' ? 'This week’s events' : 'This month’s events'
    agendaBox.appendChild(heading)
    var shown = calendar
      .getEvents()
      .filter(function (e) {
        return e.start >= view.currentStart && e.start < view.currentEnd
      })
      .sort(function (a, b) {
        return a.start - b.start
      })
    if (!shown.length) {
      var none = document.createElement('p')
      none.textContent = 'No events.'
      return agendaBox.appendChild(none)
    }
    var list = null
    var lastDay = ''
    shown.forEach(function (e) {
      var dayText = dayFormat.format(e.start)
      if (dayText !== lastDay) {
        var h = document.createElement('h3')
        h.textContent = dayText
        agendaBox.appendChild(h)
        list = document.createElement('ul')
        agendaBox.appendChild(list)
        lastDay = dayText
      }
      var item = document.createElement('li')
      var time = document.createElement('span')
      time.className = 'agenda-time'
      time.textContent = e.allDay
        ? 'All day'
        : timeFormat.format(e.start) + (e.extendedProps.zoneLabel ? ' ' + e.extendedProps.zoneLabel : '')
      var link = document.createElement('a')
      link.href = e.url
      link.textContent = e.title
      if (e.classNames.indexOf('is-cancelled') >= 0) link.className = 'is-cancelled'
      item.appendChild(time)
      item.appendChild(document.createTextNode(' '))
      item.appendChild(link)
      list.appendChild(item)
    })
  }

  calendar.render()

  function refilter() {
    var url = new URL(location.href)
    ;[
      ['category', category],
      ['venue', venue],
    ].forEach(function (pair) {
      if (pair[1] && pair[1].value) url.searchParams.set(pair[0], pair[1].value)
      else url.searchParams.delete(pair[0])
    })
    history.replaceState(null, '', url)
    calendar.refetchEvents()
  }
  if (category) category.addEventListener('change', refilter)
  if (venue) venue.addEventListener('change', refilter)
})()
