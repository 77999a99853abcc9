function request()
   local t = {}
   for i = 1, 1000 do
      t[i] = string.rep("x", 1024 * 1024)
   end
   return table.concat(t)
end
