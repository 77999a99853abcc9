n = 0
function response(status)
   n = n + 1
   if n % 2 == 0 then
      error("every second answer is refused")
   end
end
