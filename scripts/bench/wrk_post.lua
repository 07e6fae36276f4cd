-- POSTs one JSON body from every wrk connection with a bearer token from a file of tokens (one per
-- line): each thread uses its own tokens (every THREADS-th), each for `uses` requests in a row and
-- then the next, as a client reuses its key, so no token goes over its rate limit. Counts as an
-- error every answer that is not HTTP 200 with a body beginning as expected, and prints one JSON
-- line of results when done.
-- Arguments (after `--`): tokens file, body, expected body prefix, number of wrk threads, uses.

local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  tokens = {}
  for line in io.lines(args[1]) do
    if #line > 0 then table.insert(tokens, line) end
  end
  body = args[2]
  expected = args[3]
  thread_count = tonumber(args[4])
  uses = tonumber(args[5])
  sent = 0
  bad = 0
  sample = ""
end

function request()
  local token = tokens[(id + thread_count * math.floor(sent / uses)) % #tokens + 1]
  sent = sent + 1
  return wrk.format("POST", nil, {
    ["Authorization"] = "Bearer " .. token,
    ["Content-Type"] = "application/json",
  }, body)
end

function response(status, headers, response_body)
  if status ~= 200 or string.sub(response_body, 1, #expected) ~= expected then
    bad = bad + 1
    if sample == "" then sample = status .. " " .. string.sub(response_body, 1, 160) end
  end
end

function done(summary, latency, requests)
  local bad_total, sample_any = 0, ""
  for _, thread in ipairs(threads) do
    bad_total = bad_total + thread:get("bad")
    local s = thread:get("sample")
    if sample_any == "" and s ~= nil then sample_any = s end
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,' ..
      '"bad":%d,"socket_errors":%d,"sample":%q}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency.max, bad_total, e.connect + e.read + e.write + e.timeout, sample_any))
end
