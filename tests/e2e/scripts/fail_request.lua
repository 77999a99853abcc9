function request()
   error("no request today")
end
