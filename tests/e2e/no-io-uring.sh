#!/bin/bash
# io_uring refused as in a container with the runtime's default seccomp
# profile: seccomp_exec (a raw BPF filter) fails io_uring_setup with EPERM,
# then with ENOSYS. shb must say so in one line naming the seccomp filter
# and what allows io_uring, exit 1, and open no connection. The same
# command without the filter succeeds.
# shellcheck disable=SC2154 # srv_PORT, srv_PID, srv_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK SHB_SECCOMP_EXEC

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"

want_line() {
	echo "shb: io_uring is not available: io_uring_setup failed ($1) under a" \
		"seccomp filter, as container runtimes' default profiles do: run" \
		"with a seccomp profile that allows io_uring_setup, io_uring_enter" \
		"and io_uring_register (docs/distributed.md, \"io_uring in containers\")"
}

for errno_name in EPERM ENOSYS; do
	case $errno_name in
	EPERM) text="Operation not permitted" ;;
	ENOSYS) text="Function not implemented" ;;
	esac
	note "io_uring_setup fails with $errno_name"
	RC=0
	timeout -k 5 30 "$SHB_SECCOMP_EXEC" "$errno_name" "$SHB" -t 2 -c 4 -n 100 \
		--report "json:$E2E_TMP/$errno_name.json" "$url" \
		>"$E2E_TMP/$errno_name.stdout" 2>"$E2E_TMP/$errno_name.stderr" </dev/null || RC=$?
	[[ $RC -ne 125 ]] || { cat "$E2E_TMP/$errno_name.stderr" >&2; fail "seccomp_exec could not run shb"; }
	if [[ $RC -ne 1 || "$(cat "$E2E_TMP/$errno_name.stderr")" != "$(want_line "$text")" ]]; then
		echo "--- stderr:" >&2
		cat "$E2E_TMP/$errno_name.stderr" >&2
		fail "$errno_name: exit $RC, want 1 and exactly: $(want_line "$text")"
	fi
	[[ ! -s "$E2E_TMP/$errno_name.stdout" ]] || fail "$errno_name: a report on stdout"
	[[ ! -e "$E2E_TMP/$errno_name.json" ]] || fail "$errno_name: a report file was created"
done

note "the same run without the filter"
run_shb plain -t 2 -c 4 -n 100 "$url"
expect_rc plain 0
check plain 'requests.total == 100' 'requests.ok == 100'
stop_server "$srv_PID"
# only the run without the filter connected
check_file "$srv_STATS" 'accepted == 4' 'requests == 100'
echo "ok"
