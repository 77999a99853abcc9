function setup(thread)
   local t = nil
   thread:set("x", t.field)
end
