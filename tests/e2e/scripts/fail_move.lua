function setup(thread)
   thread:set("f", function() end)
end
