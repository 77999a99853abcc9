-- N requests in each request() string (N the first argument after --):
-- without -p a string is the pipeline, and 64 is its longest.
function init(args)
   local n = tonumber(args[1])
   local r = {}
   for i = 1, n do
      r[i] = wrk.format(nil, "/?" .. i)
   end
   req = table.concat(r)
end

function request()
   return req
end
