-- Apache Traffic Server (tslua remap script) for the interop suite's
-- h2:goaway case: "Connection: close" on the response to every 5th
-- request of a client session, which makes Traffic Server end the
-- session (a GOAWAY on HTTP/2) once its open streams are done, as
-- close.conf does for /close. Traffic Server 9.2 has no per-session
-- request limit of its own. The count lives in the Lua state of the
-- session's thread and is dropped when it fires.
local every = 5
local count = {}

local function close_after()
	ts.client_response.header['Connection'] = 'close'
	return 0
end

function do_remap()
	local id = ts.http.ssn_id()
	local n = (count[id] or 0) + 1
	if n >= every then
		count[id] = nil
		ts.hook(TS_LUA_HOOK_SEND_RESPONSE_HDR, close_after)
	else
		count[id] = n
	end
	return 0
end
