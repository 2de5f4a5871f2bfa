"""Debian's python3-caldav against the example server's CalDAV face: prints one JSON object of
what it saw, for test/caldav-clients.test.ts to check. Usage: python-client.py URL PASSWORD"""
import datetime
import json
import sys
import time

import caldav

url, password = sys.argv[1], sys.argv[2]
out = {}
started = time.time()
client = caldav.DAVClient(url=url, username="python", password=password)
calendars = client.principal().calendars()
out["calendars"] = [str(c.url) for c in calendars]
cal = calendars[0]
out["before"] = len(cal.events())
cal.save_event("""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//python test//EN
BEGIN:VEVENT
UID:python-1@client.example
DTSTAMP:20260101T000000Z
DTSTART;TZID=Europe/Berlin:20270104T100000
DTEND;TZID=Europe/Berlin:20270104T120000
RRULE:FREQ=WEEKLY;COUNT=3
SUMMARY:From python
LOCATION:Python Hall
END:VEVENT
END:VCALENDAR
""")
event = cal.event_by_uid("python-1@client.example")
out["url"] = str(event.url)
out["summary"] = str(event.vobject_instance.vevent.summary.value)
out["rrule"] = str(event.vobject_instance.vevent.rrule.value)
found = cal.date_search(start=datetime.datetime(2027, 1, 10), end=datetime.datetime(2027, 1, 12), expand=False)
out["search"] = [str(x.url) for x in found]
outside = cal.date_search(start=datetime.datetime(2027, 3, 1), end=datetime.datetime(2027, 3, 2), expand=False)
out["outside"] = [str(x.url) for x in outside]
event.vobject_instance.vevent.summary.value = "From python, edited"
event.save()
out["edited"] = str(cal.event_by_uid("python-1@client.example").vobject_instance.vevent.summary.value)
cal.event_by_uid("python-1@client.example").delete()
out["after"] = len(cal.events())
out["seconds"] = round(time.time() - started, 3)
print(json.dumps(out))
