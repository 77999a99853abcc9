#!/bin/bash
# deploy/k8s/shb-seccomp.json, the strict profile (an allowlist: every
# system call not named fails with EPERM), applied for real: seccomp_exec
# ALLOW installs exactly its list as a BPF filter and runs shb under it.
# HTTP/1.1 by name and by address, open loop with every file reporter,
# the prom reporter's pushes, merge, a mixed run, templates, a comparison,
# TLS over HTTP/1.1 and HTTP/2 and HTTP/3 (bun), and a run stopped by
# SIGINT must all work as without the filter. Then a control: the same
# list without io_uring_setup must stop shb with its one line about
# seccomp, so the filter is known to bite.
# shellcheck disable=SC2154 # srv_PORT etc.: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK SHB_SECCOMP_EXEC
profile=$(dirname "$0")/../../deploy/k8s/shb-seccomp.json
[[ -f $profile ]] || fail "no $profile"
command -v gcc >/dev/null || fail "gcc is not installed (scripts/setup.sh)"

# The profile's names as this machine's system call numbers, through the C
# library's <sys/syscall.h>: a name it does not know is an error in the
# profile.
nrs() { # nrs OUT [NAME-TO-LEAVE-OUT]
	python3 - "$profile" "${2:-}" >"$E2E_TMP/names.c" <<'PY'
import json, sys
prof = json.load(open(sys.argv[1]))
assert prof["defaultAction"] == "SCMP_ACT_ERRNO", prof["defaultAction"]
names = [n for r in prof["syscalls"] if r["action"] == "SCMP_ACT_ALLOW"
         for n in r["names"] if n != sys.argv[2]]
print("#include <sys/syscall.h>")
for n in names:
    print(f"{n} SYS_{n}")
PY
	gcc -E -P "$E2E_TMP/names.c" | grep -v '^$' >"$E2E_TMP/names.out" ||
		fail "cannot preprocess the system call names"
	if grep -q ' SYS_' "$E2E_TMP/names.out"; then
		fail "names the C library does not know: $(grep ' SYS_' "$E2E_TMP/names.out" | cut -d' ' -f1 | tr '\n' ' ')"
	fi
	awk '{print $2}' "$E2E_TMP/names.out" | tr -d '()' >"$1"
}
nrs "$E2E_TMP/allow.nrs"
note "the profile allows $(wc -l <"$E2E_TMP/allow.nrs") system calls"

real_shb=$SHB
wrap() { # wrap NRS-FILE: SHB becomes shb under that allowlist
	cat >"$E2E_TMP/shb-filtered" <<SH
#!/bin/sh
exec "$SHB_SECCOMP_EXEC" ALLOW "$1" "$real_shb" "\$@"
SH
	chmod +x "$E2E_TMP/shb-filtered"
	SHB=$E2E_TMP/shb-filtered
}
wrap "$E2E_TMP/allow.nrs"

ok_run() { # ok_run NAME N ARGS...: exit 0, N requests, all ok
	local name=$1 n=$2
	shift 2
	run_shb "$name" "$@"
	[[ $RC -eq 0 ]] || { show_run "$name"; fail "$name: exit $RC under the profile"; }
	check "$name" "requests.total==$n" "requests.ok==$n" 'requests.errors==0'
}

start_testserver srv hello
p=$srv_PORT
ok_run byname 200 -n 200 -c 4 "http://localhost:$p/"
ok_run mix 100 -n 100 -c 2 --mix "http://127.0.0.1:$p/a@1" "http://127.0.0.1:$p/b@3"
ok_run tmpl 100 -n 100 -c 2 -H 'X-Seq: {{seq}}' "http://127.0.0.1:$p/{{uuid}}"
run_shb open -R 200 -z 1s --interval 200ms -c 2 \
	--report "csv:$E2E_TMP/o.csv,hgrm:$E2E_TMP/o.hgrm,html:$E2E_TMP/o.html" \
	"http://127.0.0.1:$p/"
[[ $RC -eq 0 ]] || { show_run open; fail "open loop: exit $RC under the profile"; }
check open 'requests.ok>=150' 'requests.errors==0'
for f in o.csv o.hgrm o.html; do
	[[ -s "$E2E_TMP/$f" ]] || fail "open loop: no $f"
done

note "the prom reporter's pushes (a thread, sockets, poll, a name resolved)"
python3 "$(dirname "$0")/prom_linger.py" "$E2E_TMP/linger.port" >"$E2E_TMP/linger.log" 2>&1 &
E2E_PIDS+=("$!")
for _ in $(seq 1 100); do
	[[ -s "$E2E_TMP/linger.port" ]] && break
	sleep 0.05
done
[[ -s "$E2E_TMP/linger.port" ]] || fail "prom_linger.py did not start"
run_shb prom -z 1s -c 2 --interval 200ms --report "prom:$E2E_TMP/prom.out" \
	--report-opt "prom.url=http://localhost:$(cat "$E2E_TMP/linger.port")/api/v1/write" \
	"http://127.0.0.1:$p/"
[[ $RC -eq 0 ]] || { show_run prom; fail "prom: exit $RC under the profile"; }
grep -q "^prom: [1-9][0-9]* pushes taken, 0 failed, 0 dropped; the run's totals are in Prometheus$" \
	"$E2E_TMP/prom.out" || { cat "$E2E_TMP/prom.out" >&2; show_run prom; fail "prom: pushes failed under the profile"; }
RC=0
"$SHB" merge --report "json:$E2E_TMP/merged.json" "$E2E_TMP/open.json" "$E2E_TMP/byname.json" \
	>"$E2E_TMP/merge.out" 2>&1 || RC=$?
# Two runs with other options: merge refuses them with its one line; it
# got as far as reading and comparing both under the filter.
[[ $RC -eq 2 ]] && grep -q "merge needs runs with the same options" "$E2E_TMP/merge.out" ||
	{ cat "$E2E_TMP/merge.out" >&2; fail "merge: exit $RC under the profile"; }
RC=0
"$SHB" merge --report "json:$E2E_TMP/merged.json" "$E2E_TMP/byname.json" "$E2E_TMP/byname.json" \
	>"$E2E_TMP/merge2.out" 2>&1 || RC=$?
[[ $RC -eq 0 ]] || { cat "$E2E_TMP/merge2.out" >&2; fail "merge: exit $RC under the profile"; }
"$SHB_JCHECK" "$E2E_TMP/merged.json" 'requests.total==400' ||
	fail "merge under the profile: $(cat "$E2E_TMP/merged.json")"

note "a run stopped by SIGINT reports what ran (exit 130)"
"$SHB" -q -c 2 -z 20s --report "json:$E2E_TMP/int.json" "http://127.0.0.1:$p/" \
	>"$E2E_TMP/int.out" 2>&1 </dev/null &
pid=$!
E2E_PIDS+=("$pid")
sleep 1
kill -INT "$pid"
RC=0
wait "$pid" || RC=$?
pid_forget "$pid"
[[ $RC -eq 130 ]] || { cat "$E2E_TMP/int.out" >&2; fail "SIGINT: exit $RC, want 130"; }
"$SHB_JCHECK" "$E2E_TMP/int.json" 'requests.ok>0' 'interrupted==true' ||
	fail "SIGINT: $(cat "$E2E_TMP/int.json")"
stop_server "$srv_PID"

note "TLS: HTTP/1.1, HTTP/2 and HTTP/3 against bun"
# shellcheck source=../h3/servers/bun.sh
source "$(dirname "$0")/../h3/servers/bun.sh"
mkdir -p "$E2E_TMP/bun"
h3srv_start_bun "$E2E_TMP/bun" || fail "bun did not start"
E2E_PIDS+=("$H3SRV_PID")
u="https://127.0.0.1:$H3SRV_PORT/"
ok_run tls1 100 -n 100 -c 2 "$u"
ok_run tls2 100 -n 100 -c 2 --http2 "$u"
ok_run tls3 100 -n 100 -c 2 --http3 "$u"
run_shb cmp -n 100 -c 2 a="$u" b="$u"
[[ $RC -eq 0 ]] || { show_run cmp; fail "comparison: exit $RC under the profile"; }
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]));
assert [x["requests"]["ok"] for x in r] == [100, 100], r' "$E2E_TMP/cmp.json" ||
	fail "comparison: $(cat "$E2E_TMP/cmp.json")"
h3srv_stop "$H3SRV_PID"
pid_forget "$H3SRV_PID"

note "control: without io_uring_setup the filter stops shb"
nrs "$E2E_TMP/less.nrs" io_uring_setup
wrap "$E2E_TMP/less.nrs"
start_testserver srv2 hello
run_shb ctl -n 10 -c 1 "http://127.0.0.1:$srv2_PORT/"
[[ $RC -eq 1 ]] && grep -q "io_uring is not available" "$E2E_TMP/ctl.stderr" ||
	{ show_run ctl; fail "control: exit $RC; the filter did not bite"; }
stop_server "$srv2_PID"
note "passed"
