function request()
   return nil
end
