-- Every member of the scripting API shb takes from wrk, with what a test
-- can check exactly: the wrk table from the command line, wrk.format,
-- init's arguments, thread:get/set with nested tables, response's status,
-- headers and body, and done's summary and statistics objects.
local threads = {}

function setup(thread)
   table.insert(threads, thread)
   thread:set("id", #threads)
   thread:set("conf", { name = "t" .. #threads, list = { 1, 2, 3 }, on = true })
   io.write(string.format("setup %d addr %s\n", #threads, tostring(thread.addr)))
end

function init(args)
   seen = 0
   bodies = 0
   statuses = {}
   io.write(string.format("init %d %s args %d %s %s\n", id, conf.name,
      #args, args[1] or "-", args[2] or "-"))
   io.write(string.format("wrk %s %s %s %s %s %s %s\n", wrk.scheme, wrk.host,
      tostring(wrk.port), wrk.method, wrk.path, wrk.headers["X-Api"],
      tostring(wrk.body)))
end

function request()
   seen = seen + 1
   local path = (seen % 2 == 0) and "/missing" or "/ok"
   return wrk.format("PUT", path, { ["X-Seen"] = seen }, "n=" .. seen)
end

function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
   if headers["X-Reply"] == "yes" and body == "fine" then
      bodies = bodies + 1
   end
end

function done(summary, latency, requests)
   for _, t in ipairs(threads) do
      local st = t:get("statuses")
      io.write(string.format("thread %d seen %d bodies %d 200=%d 404=%d conf %s %d\n",
         t:get("id"), t:get("seen"), t:get("bodies"), st[200] or 0,
         st[404] or 0, t:get("conf").name, #t:get("conf").list))
   end
   io.write(string.format("summary requests %d status %d connect %d read %d write %d timeout %d\n",
      summary.requests, summary.errors.status, summary.errors.connect,
      summary.errors.read, summary.errors.write, summary.errors.timeout))
   io.write(string.format("duration %s bytes %s\n",
      tostring(summary.duration > 0), tostring(summary.bytes > 0)))
   local ok = latency.min <= latency.mean and latency.mean <= latency.max
      and latency:percentile(50) <= latency:percentile(99.9)
      and latency.stdev >= 0 and latency:percentile(100) == latency.max
   local n, total = #latency, 0
   for i = 1, n do
      local v, c = latency(i)
      total = total + c
   end
   io.write(string.format("latency ordered %s counted %d\n", tostring(ok), total))
   io.write(string.format("rates %s\n", tostring(requests.max >= requests.min)))
end
