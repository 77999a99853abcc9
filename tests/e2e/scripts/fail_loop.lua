function request()
   while true do end
end
