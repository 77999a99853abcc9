function request()
   return "GET /a HTTP/1.1\r\nHost: x\r\n"
end
