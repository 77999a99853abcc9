#!/bin/bash
# ABI 1.4, the core's side: a protocol of request model NONE with named
# outcomes (line14 of tests/abi/run_1_3/line_proto.c: space "line", ok 0
# and err 1) against a line server that answers every tenth PING with an
# error reply.
# - every HTTP request option is refused with one line naming it and the
#   protocol, exit 2, before any traffic (the server's count proves it);
# - --success takes the protocol's outcome names (an unknown one is
#   refused, listing them) and judges replies by them;
# - the run facts (the reporter facts14) carry the request model, the
#   outcome spaces, the success set, the proxy, --connect-to, --resolve
#   and --source as typed;
# - a failed --slo exits 3 also when requests failed, or all did;
# - http_proxy and the like in the environment leave a line:// run alone.
#
# LINE14_DIR (set by meson): the directory holding shb-proto-line14.so.
source "$(dirname "$0")/lib.sh"
need SHB SHB_JCHECK
[[ -f "$LINE14_DIR/shb-proto-line14.so" ]] || fail "no shb-proto-line14.so in LINE14_DIR"
unset http_proxy https_proxy all_proxy ALL_PROXY HTTPS_PROXY no_proxy NO_PROXY

portfile=$E2E_TMP/line.port
python3 "$LINE_SERVER" "$portfile" 2>"$E2E_TMP/line.log" &
srv=$!
E2E_PIDS+=("$srv")
for _ in $(seq 1 100); do
	[[ -s "$portfile" ]] && break
	sleep 0.05
done
[[ -s "$portfile" ]] || { cat "$E2E_TMP/line.log" >&2; fail "the line server did not start"; }
port=$(cat "$portfile")
url="line://127.0.0.1:$port/"
L=(--plugin-dir "$LINE14_DIR" --proto line14)

# refused_exact NAME LINE ARGS...: exit 2 and exactly LINE on stderr.
refused_exact() {
	local name=$1 want=$2
	shift 2
	run_shb "$name" "$@"
	expect_rc "$name" 2
	[[ "$(cat "$E2E_TMP/$name.stderr")" == "$want" ]] ||
		{ show_run "$name"; fail "$name: expected exactly: $want"; }
}

note "every HTTP request option is refused, named, exit 2"
tail='protocol "line14" takes no HTTP request (its requests come from --proto-opt)'
printf 'a\nb\n' >"$E2E_TMP/lines.txt"
n=0
for opt in "-m POST" "-X POST" "--method POST" "-H X-A:1" "--header X-A:1" \
	"-d x" "--data x" "--data-binary x" "--body-lines $E2E_TMP/lines.txt" \
	"--priority u=1"; do
	read -r o v <<<"$opt"
	n=$((n + 1))
	refused_exact "opt$n" "shb: $o is an HTTP option; $tail" "${L[@]}" -n 10 "$o" "$v" "$url"
done
refused_exact follow "shb: -L/--location is an HTTP option; $tail" "${L[@]}" -n 10 -L "$url"
refused_exact tmpl "shb: template in the URL \"/{{seq}}\": templates make HTTP requests vary; $tail" \
	"${L[@]}" -n 10 "line://127.0.0.1:$port/{{seq}}"
printf 'line://127.0.0.1:%s/ 1 POST\n' "$port" >"$E2E_TMP/urls.txt"
refused_exact urls "shb: --urls $E2E_TMP/urls.txt line 1: a method is part of an HTTP request; $tail" \
	"${L[@]}" -n 10 --urls "$E2E_TMP/urls.txt"
refused_exact class "shb: --success: \"2xx\" is an HTTP status; protocol \"line14\" takes no HTTP request (its outcomes: ok, err)" \
	"${L[@]}" -n 10 --success ok,2xx "$url"
refused_exact range "shb: --success: \"200-299\" is an HTTP status; protocol \"line14\" takes no HTTP request (its outcomes: ok, err)" \
	"${L[@]}" -n 10 --success 200-299 "$url"
refused_exact unknown "shb: --success: \"nope\" is not an outcome of protocol \"line14\" (its outcomes: ok, err)" \
	"${L[@]}" -n 10 --success ok,nope "$url"
refused_exact space "shb: --success: \"redis.ok\" is not an outcome of protocol \"line14\" (its outcomes: ok, err)" \
	"${L[@]}" -n 10 --success redis.ok "$url"

note "default: app_ok judges (180 ok, 20 error replies)"
run_shb plain "${L[@]}" -n 200 -c 2 -p 4 "$url"
expect_rc plain 0
check plain 'requests.total == 200' 'requests.ok == 180' 'requests.errors == 20' \
	'errors.application == 20'

note "--success ok,err: every reply a success"
run_shb both "${L[@]}" -n 200 -c 2 -p 4 --success ok,err "$url"
expect_rc both 0
check both 'requests.total == 200' 'requests.ok == 200' 'requests.errors == 0' \
	'requests.answered == 200' 'requestModel == "none"' 'success == "ok,err"'

note "--mix: each target's request without a method either (line14 checks)"
run_shb mix "${L[@]}" -n 100 -c 2 -p 4 --mix --report "facts14:$E2E_TMP/mix.txt" \
	"${url}@1" "${url}@3"
expect_rc mix 0
check mix 'requests.total == 100' 'requests.ok == 90' 'requests.errors == 10'
grep -qx "target_method " "$E2E_TMP/mix.txt" || { cat "$E2E_TMP/mix.txt" >&2; fail "mix: a target has a method"; }

note "--success line.err: membership, not app_ok (20 ok, 180 error replies)"
run_shb erronly "${L[@]}" -n 200 -c 2 -p 4 --success line.err "$url"
expect_rc erronly 0
check erronly 'requests.total == 200' 'requests.ok == 20' 'requests.errors == 180' \
	'errors.application == 180' 'requests.answered == 200' 'success == "line.err"' \
	'errorSamples.application == "outcome line.ok is not a success (--success line.err)"'

note "the run facts, with proxy variables in the environment (not for line://)"
facts=$E2E_TMP/facts.txt
http_proxy=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 \
	run_shb facts "${L[@]}" -n 200 -c 2 -p 4 --success ok,err --report "facts14:$facts" \
	--connect-to "127.0.0.1:$port:127.0.0.1:$port" --connect-to "other.test:80:127.0.0.1:$port" \
	--resolve "other.test:$port:127.0.0.1" --source 127.0.0.1 "$url"
expect_rc facts 0
check facts 'requests.total == 200' 'requests.ok == 200' 'connectionsOpened == 2'
want=$(cat <<EOT
method 
target_method 
request_model 1
spaces line:65537=ok/1,err/0;
success ok,err
proxy -
connect_to 127.0.0.1:$port:127.0.0.1:$port|other.test:80:127.0.0.1:$port
resolve other.test:$port:127.0.0.1
source 127.0.0.1
unix_socket -
answered 200
EOT
)
[[ "$(cat "$facts")" == "$want" ]] ||
	{ diff <(echo "$want") "$facts" >&2; fail "facts14 printed other facts"; }

note "--slo failed in a run with error replies: exit 3 (was 1 when requests failed)"
run_shb slo "${L[@]}" -n 200 -c 2 -p 4 --slo 'error_rate<1%' "$url"
expect_rc slo 3
grep -q "SLO failed: error_rate" "$E2E_TMP/slo.stderr" || { show_run slo; fail "no SLO line"; }

note "-x given explicitly applies (credentials never shown); nothing answered and --slo: 3"
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
facts2=$E2E_TMP/facts2.txt
run_shb proxied "${L[@]}" -n 10 -c 1 -x "http://u:secret@127.0.0.1:$closed" \
	--report "facts14:$facts2" --slo 'error_rate<1%' "$url"
expect_rc proxied 3
grep -qx "proxy http://127.0.0.1:$closed" "$facts2" || { cat "$facts2" >&2; fail "proxy fact"; }
grep -q secret "$facts2" && fail "the proxy's credentials were shown"
run_shb proxied1 "${L[@]}" -n 10 -c 1 -x "http://127.0.0.1:$closed" "$url"
expect_rc proxied1 1

kill -TERM "$srv"
wait "$srv" || true
# 5 runs of 200, one of 100, and nothing from the refused ones.
grep -qx "answered 1100" "$E2E_TMP/line.log" ||
	{ cat "$E2E_TMP/line.log" >&2; fail "the server did not answer exactly 1100 lines"; }
note "passed"
