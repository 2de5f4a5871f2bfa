// The editor: signs in with an API token; lists, searches, creates, edits and trashes events
// through the API. What the API answers is what the visitor sees: a 400's messages
// (data.params / data.details) go next to the fields they name, anything else to the status
// line. Checked here first, nothing sent until they are right: an end before the start, and a
// new venue's or organizer's name, web addresses, email address and phone number.
;(function () {
  var root = document.getElementById('editor')
  if (!root) return
  var api = root.getAttribute('data-api')
  var cookieName = root.getAttribute('data-cookie')
  var siteZone = root.getAttribute('data-timezone') || 'UTC'
  var KEY = 'calendar-token'
  var signIn = document.getElementById('sign-in')
  var signInForm = document.getElementById('sign-in-form')
  var editor = document.getElementById('signed-in')
  var form = document.getElementById('event-form')
  var statusBox = document.getElementById('form-status')
  var heading = document.getElementById('form-heading')
  var save = document.getElementById('save')
  var eventId = null

  function token() {
    return sessionStorage.getItem(KEY)
  }
  // The cookie lets the server-rendered pages show this visitor what the token may see
  // (drafts); the API never reads it. SameSite=Strict keeps other sites' requests without it.
  function setCookie(value) {
    var secure = location.protocol === 'https:' ? '; Secure' : ''
    document.cookie =
      cookieName + '=' + (value ? encodeURIComponent(value) : '') + '; Path=/; SameSite=Strict' + (value ? '' : '; Max-Age=0') + secure
  }

  // Where this visitor's last write committed: sent with every read so that, with read replicas,
  // the editor and the pages (through the cookie) show that write whichever server answers.
  var BOOKMARK = 'calendar_bookmark'
  function bookmark() {
    var m = new RegExp('(?:^|; )' + BOOKMARK + '=([^;]*)').exec(document.cookie)
    return m ? decodeURIComponent(m[1]) : null
  }
  function keepBookmark(res) {
    var b = res.headers.get('X-Calendar-Bookmark')
    if (!b) return
    var secure = location.protocol === 'https:' ? '; Secure' : ''
    document.cookie = BOOKMARK + '=' + encodeURIComponent(b) + '; Path=/; SameSite=Strict' + secure
  }

  function call(method, path, body) {
    var headers = { Accept: 'application/json', Authorization: 'Bearer ' + token() }
    if (body) headers['Content-Type'] = 'application/json'
    if (bookmark()) headers['X-Calendar-Bookmark'] = bookmark()
    return fetch(api + path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined }).then(function (res) {
      keepBookmark(res)
      return res.text().then(function (text) {
        var json = null
        try {
          json = JSON.parse(text)
        } catch (e) {}
        return { status: res.status, body: json }
      })
    })
  }

  function notice(message, kind, link) {
    statusBox.textContent = ''
    if (!message) return
    var p = document.createElement('p')
    p.className = 'notice' + (kind === 'error' ? ' error' : '')
    p.textContent = message
    if (link) {
      p.appendChild(document.createTextNode(' '))
      var a = document.createElement('a')
      a.href = link.href
      a.textContent = link.text
      p.appendChild(a)
    }
    statusBox.appendChild(p)
  }

  function fieldError(name, message) {
    var slot = document.getElementById('error-' + name)
    var control = document.getElementById('field-' + name)
    if (!slot || !control) return false
    slot.textContent = message
    slot.hidden = false
    control.setAttribute('aria-invalid', 'true')
    return true
  }
  function clearErrors(scope) {
    scope.querySelectorAll('.field-error').forEach(function (slot) {
      slot.textContent = ''
      slot.hidden = true
    })
    scope.querySelectorAll('[aria-invalid]').forEach(function (c) {
      c.removeAttribute('aria-invalid')
    })
  }

  // The 400 envelope: params is {name: message} (invalid) or [names] (missing); details may
  // carry a more specific message per name. `fieldOf` maps the API's name to the form's (a new
  // venue's `zip` is the form's `new_venue_zip`); `refused` opens the status line's message.
  function showInvalid(body, fieldOf, refused) {
    fieldOf =
      fieldOf ||
      function (n) {
        return n
      }
    var data = (body && body.data) || {}
    var messages = {}
    if (Array.isArray(data.params))
      data.params.forEach(function (n) {
        messages[n] = 'This field is required.'
      })
    else if (data.params && typeof data.params === 'object')
      Object.keys(data.params).forEach(function (n) {
        messages[n] = data.params[n]
      })
    if (data.details && !Array.isArray(data.details)) {
      Object.keys(data.details).forEach(function (n) {
        if (data.details[n] && data.details[n].message) messages[n] = data.details[n].message
      })
    }
    var unplaced = []
    var first = null
    Object.keys(messages).forEach(function (n) {
      if (fieldError(fieldOf(n), messages[n])) first = first || document.getElementById('field-' + fieldOf(n))
      else unplaced.push(n + ': ' + messages[n])
    })
    notice((refused || (body && body.message) || 'The API refused the event.') + (unplaced.length ? ' ' + unplaced.join(' ') : ''), 'error')
    if (first) first.focus()
  }

  function showSignedIn(yes) {
    signIn.hidden = yes
    editor.hidden = !yes
  }

  signInForm.addEventListener('submit', function (ev) {
    ev.preventDefault()
    clearErrors(signInForm)
    var value = document.getElementById('field-token').value.trim()
    if (!value) return void fieldError('token', 'Paste the token the server printed.')
    sessionStorage.setItem(KEY, value)
    // A token that may see drafts may edit: the list of drafts is the check.
    call('GET', '/events?status=draft&per_page=1').then(function (res) {
      if (res.status === 200) {
        setCookie(value)
        showSignedIn(true)
        // A form kept from before the sign-in stays as typed.
        if (eventId === null && !form.elements.title.value) start()
        else loadList()
      } else {
        sessionStorage.removeItem(KEY)
        fieldError('token', REFUSED)
        document.getElementById('field-token').focus()
      }
    })
  })

  // An unknown token reads as an anonymous caller, whom the drafts' list answers 400: what the
  // visitor needs is why, not the status.
  var REFUSED =
    'This token is not one this server accepts for editing. A token the server generated changes at every restart: ' +
    'copy the one it printed last, or use one of CALENDAR_API_TOKENS with the editor or administrator role.'

  // A saved token that stops working (the server restarted with a new generated one): back to
  // the sign-in, with the form kept as typed for after.
  function tokenExpired() {
    sessionStorage.removeItem(KEY)
    setCookie(null)
    showSignedIn(false)
    notice('')
    clearErrors(signInForm)
    fieldError(
      'token',
      'Your token is no longer accepted (the server may have restarted with a new one). Paste the current token; the form keeps what you typed.',
    )
    document.getElementById('field-token').focus()
  }

  document.getElementById('sign-out').addEventListener('click', function () {
    sessionStorage.removeItem(KEY)
    setCookie(null)
    showSignedIn(false)
    document.getElementById('field-token').focus()
  })

  var wallToInput = function (s) {
    return s ? s.slice(0, 16).replace(' ', 'T') : ''
  }
  var inputToWall = function (s, allDay) {
    if (!s) return ''
    return allDay ? s.slice(0, 10) : s.replace('T', ' ') + (s.length === 16 ? ':00' : '')
  }
  function set(name, value) {
    var el = form.elements[name]
    if (!el) return
    if (el.type === 'checkbox') el.checked = !!value
    else el.value = value == null ? '' : value
  }

  // Titles and term names as text (see calendar.js): a textarea decodes entities and never runs markup.
  var decoder = document.createElement('textarea')
  function text(html) {
    decoder.innerHTML = String(html).replace(/<[^>]*>?/g, '')
    return decoder.value.trim()
  }

  function fill(e) {
    set('title', text(e.title))
    set('description', e.description)
    set('start_date', wallToInput(e.start_date))
    set('end_date', wallToInput(e.end_date))
    set('all_day', e.all_day)
    set('timezone', e.timezone)
    set('status', e.status === 'draft' ? 'draft' : 'publish')
    set('event_status', e.event_status || 'scheduled')
    set('event_status_reason', e.event_status_reason)
    set('attendance_mode', e.attendance_mode || 'offline')
    set('virtual_url', e.virtual_url)
    set('venue', e.venue && e.venue.id ? String(e.venue.id) : '')
    set('organizer', e.organizer && e.organizer[0] ? String(e.organizer[0].id) : '')
    pickTerms(
      'categories',
      (e.categories || []).map(function (c) {
        return text(c.name)
      }),
    )
    pickTerms(
      'tags',
      (e.tags || []).map(function (t) {
        return text(t.name)
      }),
    )
    showNewLinked()
    set('cost', e.cost_details && e.cost_details.values && e.cost_details.values.length ? e.cost : e.cost || '')
    set('website', e.website && e.website !== e.url ? e.website : '')
  }

  function editing(e) {
    eventId = e.id
    heading.textContent = 'Edit event'
    save.textContent = 'Save changes'
    var url = new URL(location.href)
    url.searchParams.set('id', String(e.id))
    history.replaceState(null, '', url)
  }

  function body() {
    var v = function (n) {
      return form.elements[n].value.trim()
    }
    var allDay = form.elements.all_day.checked
    var out = {
      title: v('title'),
      description: form.elements.description.value,
      start_date: inputToWall(v('start_date'), allDay),
      end_date: inputToWall(v('end_date'), allDay),
      all_day: allDay,
      timezone: v('timezone'),
      status: v('status'),
      event_status: v('event_status'),
      event_status_reason: v('event_status_reason'),
      attendance_mode: v('attendance_mode'),
      virtual_url: v('virtual_url'),
      cost: v('cost'),
      website: v('website'),
      categories: checkedTerms('categories'),
      tags: checkedTerms('tags'),
    }
    if (v('venue') && v('venue') !== 'new') out.venue = Number(v('venue'))
    if (v('organizer') && v('organizer') !== 'new') out.organizer = [Number(v('organizer'))]
    return out
  }

  form.addEventListener('submit', function (ev) {
    ev.preventDefault()
    clearErrors(form)
    if (!checked()) return
    notice('Saving…')
    save.disabled = true
    createLinked('venue')
      .then(function () {
        return createLinked('organizer')
      })
      .then(function () {
        return call('POST', eventId ? '/events/' + eventId : '/events', body())
      })
      .then(function (res) {
        if (!res) return
        if (res.status === 200 || res.status === 201) {
          var e = res.body
          editing(e)
          var published = e.status === 'publish'
          notice(
            (res.status === 201 ? 'Event created' : 'Changes saved') + (published ? '.' : ' (a draft: only editors see its page).'),
            'ok',
            { href: new URL(e.url, location.href).pathname + new URL(e.url, location.href).search, text: 'View its page' },
          )
          statusBox.focus()
          loadList()
        } else if (res.status === 400) {
          showInvalid(res.body)
        } else if (res.status === 401) {
          tokenExpired()
        } else if (res.status === 403) {
          notice('This token’s role may not do that: ' + ((res.body && res.body.message) || 'forbidden.'), 'error')
        } else {
          notice('The API answered HTTP ' + res.status + ': ' + ((res.body && res.body.message) || 'no message'), 'error')
        }
      })
      .catch(function (error) {
        if (error && error.shown) return
        notice('The API could not be reached: ' + error.message, 'error')
      })
      .then(function () {
        save.disabled = false
      })
  })

  // ---- Checked before sending: every mistake marked at once, the first one focused.
  function checked() {
    // All three run, so that every mistake is marked, not only the first.
    var datesOk = datesInOrder()
    var venueOk = linkedValid('venue')
    var organizerOk = linkedValid('organizer')
    if (datesOk && venueOk && organizerOk) return true
    notice(
      datesOk ? 'The event was not saved: see the fields marked below.' : 'The event was not saved: its end is before its start.',
      'error',
    )
    form.querySelector('[aria-invalid="true"]').focus()
    return false
  }

  // An end before the start is refused here, with the reason where the end is.
  function datesInOrder() {
    var allDay = form.elements.all_day.checked
    var start = inputToWall(form.elements.start_date.value.trim(), allDay)
    var end = inputToWall(form.elements.end_date.value.trim(), allDay)
    if (!start || !end || end >= start) return true
    return fieldError('end_date', 'The end is before the start.') && false
  }

  // ---- Categories and tags: the existing terms are checkboxes; a new one is added explicitly.
  function termBoxes(kind) {
    return Array.prototype.slice.call(document.querySelectorAll('#choices-' + kind + ' input[type=checkbox]'))
  }
  function checkedTerms(kind) {
    return termBoxes(kind)
      .filter(function (b) {
        return b.checked
      })
      .map(function (b) {
        return b.value
      })
  }
  // Checks the box of `name` (the same name in any case), adding one if there is none.
  function checkTerm(kind, name) {
    var found = termBoxes(kind).filter(function (b) {
      return b.value.toLowerCase() === name.toLowerCase()
    })[0]
    if (!found) {
      var li = document.createElement('li')
      found = document.createElement('input')
      found.type = 'checkbox'
      found.name = kind
      found.value = name
      found.id = 'term-' + kind + '-new-' + termBoxes(kind).length
      var label = document.createElement('label')
      label.htmlFor = found.id
      label.textContent = name
      li.appendChild(found)
      li.appendChild(label)
      document.getElementById('choices-' + kind).appendChild(li)
    }
    found.checked = true
  }
  function pickTerms(kind, names) {
    termBoxes(kind).forEach(function (b) {
      b.checked = false
    })
    names.forEach(function (n) {
      checkTerm(kind, n)
    })
  }
  document.querySelectorAll('[data-add-term]').forEach(function (button) {
    var kind = button.getAttribute('data-add-term')
    var box = document.getElementById('new-' + kind)
    function add() {
      var name = box.value.trim()
      if (!name) return void box.focus()
      checkTerm(kind, name)
      box.value = ''
      box.focus()
    }
    button.addEventListener('click', add)
    box.addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter') {
        ev.preventDefault()
        add()
      }
    })
  })

  // ---- Venue and organizer: picked from the list, or "New …" with a name and details, created
  // on save. The API takes any text as an email address or phone number; a typo there reaches
  // nobody, so the syntax is checked here (loosely: what a person would type).
  var DETAILS = { venue: ['address', 'city', 'country', 'zip', 'website'], organizer: ['email', 'phone', 'website'] }
  var CHECKS = {
    website: function (value) {
      var url = null
      try {
        url = new URL(value)
      } catch (e) {
        url = null
      }
      return url && /^https?:$/.test(url.protocol) && url.hostname.indexOf('.') > 0
        ? ''
        : 'Enter the whole web address, starting with https:// (or http://).'
    },
    email: function (value) {
      return /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value) ? '' : 'Enter an email address such as name@example.org.'
    },
    phone: function (value) {
      return /^\+?[\d\s().\/-]+((ext\.?|x)\s*\d+)?$/i.test(value) && value.replace(/\D/g, '').length >= 3
        ? ''
        : 'Enter a phone number: digits, spaces and + ( ) - . / only.'
    },
  }
  function detail(kind, key) {
    return form.elements['new_' + kind + '_' + key]
  }
  function linkedValid(kind) {
    if (form.elements[kind].value !== 'new') return true
    var ok = true
    if (!form.elements['new_' + kind].value.trim()) ok = fieldError('new_' + kind, 'Give the new ' + kind + ' a name.') && false
    DETAILS[kind].forEach(function (key) {
      var value = detail(kind, key).value.trim()
      var problem = value && CHECKS[key] ? CHECKS[key](value) : ''
      if (problem) ok = fieldError('new_' + kind + '_' + key, problem) && false
    })
    return ok
  }
  function showNewLinked() {
    ;['venue', 'organizer'].forEach(function (kind) {
      document.getElementById('new-' + kind + '-field').hidden = form.elements[kind].value !== 'new'
    })
  }
  form.elements.venue.addEventListener('change', showNewLinked)
  form.elements.organizer.addEventListener('change', showNewLinked)
  function createLinked(kind) {
    if (form.elements[kind].value !== 'new') return Promise.resolve()
    var name = form.elements['new_' + kind].value.trim()
    var refused = 'The event was not saved: the new ' + kind + ' could not be created.'
    var payload = { status: 'publish' }
    payload[kind] = name
    DETAILS[kind].forEach(function (key) {
      var value = detail(kind, key).value.trim()
      if (value) payload[key] = value
    })
    return call('POST', '/' + kind + 's', payload).then(function (res) {
      if (res.status === 401) tokenExpired()
      // The API names the field it refuses: the message goes next to that field of the new record.
      else if (res.status === 400)
        showInvalid(
          res.body,
          function (n) {
            return n === kind ? 'new_' + kind : 'new_' + kind + '_' + n
          },
          refused,
        )
      else if (res.status !== 201) {
        fieldError('new_' + kind, (res.body && res.body.message) || 'HTTP ' + res.status)
        notice(refused, 'error')
        form.elements['new_' + kind].focus()
      }
      if (res.status !== 201) throw { shown: true }
      var option = document.createElement('option')
      option.value = String(res.body.id)
      option.textContent = name
      form.elements[kind].insertBefore(option, form.elements[kind].lastElementChild)
      form.elements[kind].value = option.value
      form.elements['new_' + kind].value = ''
      DETAILS[kind].forEach(function (key) {
        detail(kind, key).value = ''
      })
      showNewLinked()
    })
  }

  // ---- The list of events: searchable, drafts included, edit and trash from each row.
  var list = document.getElementById('event-list')
  var listStatus = document.getElementById('event-list-status')
  var search = document.getElementById('event-search')
  var searchTimer = null
  function loadList() {
    var params = new URLSearchParams({ status: 'any', start_date: '1900-01-01 00:00:00', per_page: '20' })
    if (search.value.trim()) params.set('search', search.value.trim())
    return call('GET', '/events?' + params).then(function (res) {
      if (res.status === 401) return tokenExpired()
      if (res.status !== 200) return void (listStatus.textContent = 'The events could not be listed (HTTP ' + res.status + ').')
      list.textContent = ''
      res.body.events.forEach(function (e) {
        list.appendChild(listRow(e))
      })
      var n = res.body.total
      listStatus.textContent =
        n === 0 ? 'No events match.' : n === 1 ? '1 event.' : n + ' events' + (n > 20 ? ', the first 20 shown.' : '.')
    })
  }
  function listRow(e) {
    var title = text(e.title) || '(no title)'
    var li = document.createElement('li')
    var name = document.createElement('span')
    name.className = 'row-title'
    name.textContent = title
    var when = document.createElement('span')
    when.className = 'meta'
    when.textContent = ' ' + e.start_date.slice(0, 16) + (e.status !== 'publish' ? ' · ' + (STATUS[e.status] || e.status) : '')
    var edit = rowButton('Edit', 'Edit ' + title, function () {
      openEvent(e.id).then(function () {
        form.elements.title.focus()
      })
    })
    var trash = rowButton('Trash', 'Move ' + title + ' to the trash', function () {
      call('DELETE', '/events/' + e.id).then(function (res) {
        if (res.status === 401) return tokenExpired()
        if (res.status !== 200)
          return notice('“' + title + '” could not be trashed: ' + ((res.body && res.body.message) || 'HTTP ' + res.status), 'error')
        li.remove()
        notice('“' + title + '” was moved to the trash.', 'ok')
        if (eventId === e.id) location.href = '/editor/'
      })
    })
    var actions = document.createElement('span')
    actions.className = 'row-actions'
    actions.appendChild(edit)
    actions.appendChild(trash)
    li.appendChild(name)
    li.appendChild(when)
    li.appendChild(actions)
    return li
  }
  var STATUS = { draft: 'Draft', pending: 'Pending review', future: 'Scheduled', private: 'Private', trash: 'In the trash' }
  function rowButton(label, name, onClick) {
    var b = document.createElement('button')
    b.type = 'button'
    b.className = 'button secondary small'
    b.textContent = label
    b.setAttribute('aria-label', name)
    b.addEventListener('click', onClick)
    return b
  }
  search.addEventListener('input', function () {
    clearTimeout(searchTimer)
    searchTimer = setTimeout(loadList, 250)
  })

  // The form, or the event `?id=` names (the event pages' "Edit this event" link), with the list.
  function start() {
    var id = new URL(location.href).searchParams.get('id')
    if (!id || !/^\d+$/.test(id)) {
      set('timezone', siteZone)
      return void loadList()
    }
    notice('Loading event ' + id + '…')
    // Once both are in (the list above would push the form down), the event's form is brought
    // into view: it is what the visitor came for, not the top of the list.
    Promise.all([openEvent(id), loadList()]).then(function () {
      document.getElementById('event-editor').scrollIntoView({ block: 'start' })
      form.elements.title.focus({ preventScroll: true })
    })
  }

  function openEvent(id) {
    return call('GET', '/events/' + id).then(function (res) {
      if (res.status === 200) {
        fill(res.body)
        editing(res.body)
        notice('')
      } else if (res.status === 401) tokenExpired()
      else notice('Event ' + id + ' could not be loaded: ' + ((res.body && res.body.message) || 'HTTP ' + res.status), 'error')
    })
  }

  statusBox.tabIndex = -1
  if (token()) {
    showSignedIn(true)
    start()
  } else showSignedIn(false)
})()
