# The Markdown report of an interop run: sourced by run.sh, whose
# variables (runs, servers, protocols, cases, counts) it reads.
# shellcheck shell=bash disable=SC2154 # set by run.sh

report() {
	local s p line server proto ep res why rps cmd
	echo "# shb interop results"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- shb: $(run_shb --version 2>/dev/null | head -n 1) (protocol plugins: ${plugins:-none})"
	echo "- mode: $( ((quick)) && echo "quick (GET / only)" || echo "full ($all_endpoints; HTTP/1.1 cases: $h1_cases; HTTP/2 cases: $h2_cases; HTTP/3 cases: $h3_cases)")"
	echo "- each run: -c 10 -n 200, -p 16 on h2c/h2/h3, -p 8 on h1:pipe (pipelined); pass = exit 0, 200 ok, 0 errors, only status 200"
	echo "- ws/wss ($ws_endpoints): -p 4 (1 on websocketd); pass = exit 0, 200 ok, 0 errors, only close code 1000"
	echo "- grpc/grpcs ($grpc_endpoints): -p 16; pass = exit 0, 200 ok, 0 errors, only status 200 and grpc-status 0 (streams: exactly the body octets of every message sent back); grpc:fail: exit 1, 200 application errors, only grpc-status 3"
	echo "- dns ($dns_endpoints): -p 16; pass = dns:a exit 0, 200 noerror; dns:nx exit 1, 200 nxdomain answered; each with 200 queries in the server's log"
	echo
	echo "## Matrix"
	echo
	printf '| server |'
	for p in "${proto_list[@]}"; do printf ' %s |' "$p"; done
	printf '\n|---|'
	for p in "${proto_list[@]}"; do printf -- '---|'; done
	printf '\n'
	for s in "${server_list[@]}"; do
		printf '| %s |' "$s"
		for p in "${proto_list[@]}"; do printf ' %s |' "${cell["$s $p"]:-n/a}"; done
		printf '\n'
	done
	echo
	echo "## Runs"
	echo
	echo "| server | proto | endpoint | result | req/s | reason |"
	echo "|---|---|---|---|---|---|"
	for line in "${runs[@]+"${runs[@]}"}"; do
		IFS=$US read -r server proto ep res why rps cmd <<<"$line"
		printf '| %s | %s | %s | %s | %s | %s |\n' "$server" "$proto" "$ep" "$res" "$rps" "$why"
	done
	if ((failed)); then
		echo
		echo "## Failed runs: commands"
		echo
		for line in "${runs[@]+"${runs[@]}"}"; do
			IFS=$US read -r server proto ep res why rps cmd <<<"$line"
			[[ $res == FAIL && -n $cmd ]] || continue
			# The run's directory is gone: name it, not its path.
			cmd=${cmd//"$IOP_TMP"/"<tmp>"}
			# shellcheck disable=SC2016 # literal backquotes (Markdown)
			printf -- '- %s %s %s: `%s`\n' "$server" "$proto" "$ep" "$cmd"
		done
	fi
}
