-- The mixed workload for wrk: every 20th request is an editor's update of one event (5% writes),
-- the others cycle through the anonymous read targets. Arguments (after `--`): the editor's
-- bearer token, the events path, a comma list of event ids to edit, then the read targets.
local token, events, reads, writes = nil, nil, {}, {}
local n = 0

function init(args)
  token = args[1]
  events = args[2]
  for id in string.gmatch(args[3], "%d+") do writes[#writes + 1] = id end
  for i = 4, #args do reads[#reads + 1] = args[i] end
end

function request()
  n = n + 1
  if n % 20 == 0 then
    local id = writes[(n / 20) % #writes + 1]
    local body = '{"title":"Edited under load ' .. n .. '"}'
    return wrk.format("POST", events .. "/" .. id, {
      ["Authorization"] = "Bearer " .. token,
      ["Content-Type"] = "application/json",
    }, body)
  end
  return wrk.format("GET", reads[n % #reads + 1])
end
