#!/bin/bash
# deploy/slurm/shb.sbatch for real on a one-machine Slurm cluster: munged,
# slurmctld and slurmd from Debian's munge and slurm-wlm, each in the
# foreground with its key, sockets, state and configuration in this test's
# directory, stopped by PID at the end. sbatch --wait runs the script with
# 4 tasks against a local nginx: 4 shards of -n 4000 started together,
# then shb merge. The merged report must be the sum of the 4 shard reports
# (requests, statuses, histograms bucket for bucket: hdr_check.py) with a
# total of exactly 4000; the start skew between the shards is printed.
# The common start is 5 s after sbatch's job starts: srun must have
# started the 4 tasks by then (a task more than 1 s late would refuse).
# scripts/setup.sh --with-test-servers installs munge, slurm-wlm, nginx.
# shellcheck disable=SC2154 # set by free_port and start_testserver
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
here=$(cd "$(dirname "$0")" && pwd)
sbatch_script="$here/../../deploy/slurm/shb.sbatch"
[[ -f "$sbatch_script" ]] || fail "no deploy/slurm/shb.sbatch"

tool() {
	local p
	p=$(command -v "$1" || true)
	[[ -n "$p" ]] || p=$(ls "/usr/sbin/$1" 2>/dev/null || true)
	[[ -n "$p" ]] || fail "$1 is not installed (Debian package $2; scripts/setup.sh --with-test-servers)"
	echo "$p"
}
MUNGED=$(tool munged munge)
MUNGEKEY=$(tool mungekey munge)
SLURMCTLD=$(tool slurmctld slurmctld)
SLURMD=$(tool slurmd slurmd)
SBATCH=$(tool sbatch slurm-client)
nginx_need

# munged wants its socket's directory searchable by all, and its key
# readable by its user alone.
chmod 711 "$E2E_TMP"
T=$E2E_TMP/slurm
M=$E2E_TMP/munge
mkdir -p "$T/state" "$T/spool" "$T/job"
mkdir -m 711 "$M"
"$MUNGEKEY" --create --keyfile="$M/munge.key" >"$M/mungekey.log" 2>&1 ||
	{ cat "$M/mungekey.log" >&2; fail "mungekey could not create a key"; }

# wait_for FILE|SOCKET PID SECONDS
wait_for() {
	local _
	for _ in $(seq 1 $(($3 * 20))); do
		[[ -e "$1" ]] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

"$MUNGED" -F --socket="$M/socket" --key-file="$M/munge.key" \
	--pid-file="$M/munged.pid" --log-file="$M/munged.log" \
	--seed-file="$M/munged.seed" >"$M/stdout.log" 2>&1 &
MUNGED_PID=$!
E2E_PIDS+=("$MUNGED_PID")
E2E_LOGS[$MUNGED_PID]="$M/stdout.log"
wait_for "$M/socket" "$MUNGED_PID" 10 ||
	{ cat "$M/stdout.log" >&2; fail "munged did not start"; }

# nginx answers every request with 200 and 13 bytes.
servers() {
	nginx_conf "$T/nginx" off <<SERVERS
	server {
		listen 127.0.0.1:$WEB;
		location / { return 200 "hello, world!"; }
	}
SERVERS
}
nginx_start "$T/nginx" servers WEB

# One node of 4 CPUs (config_overrides: whatever the machine has), no
# cgroups (proctrack/linuxproc, task/none), no accounting. The daemons
# and the jobs run as the user running the test.
free_port CTLD_PORT
free_port SLURMD_PORT
me=$(id -un)
cat >"$T/slurm.conf" <<CONF
ClusterName=shbtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=$me
SlurmdUser=$me
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$M/socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=shb Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$T/slurm.conf

"$SLURMCTLD" -D -i -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 &
CTLD_PID=$!
E2E_PIDS+=("$CTLD_PID")
E2E_LOGS[$CTLD_PID]="$T/slurmctld.log"
wait_port "$CTLD_PORT" "$CTLD_PID" || { cat "$T/slurmctld.out" >&2; fail "slurmctld did not start"; }
"$SLURMD" -D -N localhost -f "$SLURM_CONF" >"$T/slurmd.out" 2>&1 &
SLURMD_PID=$!
E2E_PIDS+=("$SLURMD_PID")
E2E_LOGS[$SLURMD_PID]="$T/slurmd.log"
wait_port "$SLURMD_PORT" "$SLURMD_PID" || { cat "$T/slurmd.out" >&2; fail "slurmd did not start"; }
note "munged $MUNGED_PID, slurmctld $CTLD_PID on :$CTLD_PORT, slurmd $SLURMD_PID on :$SLURMD_PORT, nginx on :$WEB"

stop_all() {
	local pid
	for pid in "$SLURMD_PID" "$CTLD_PID" "$NGINX_PID" "$MUNGED_PID"; do
		kill_quiet "$pid"
	done
}

note "sbatch --wait: 4 shards of -n 4000 -c 8"
R=$T/results
RC=0
SHB="$SHB" SHB_RESULTS="$R" SHB_START_DELAY=5 timeout -k 5 45 \
	"$SBATCH" --wait --ntasks=4 --time=00:02:00 --chdir="$T/job" --output="$T/job/out.txt" \
	"$sbatch_script" -n 4000 -c 8 "http://127.0.0.1:$WEB/" \
	>"$T/sbatch.out" 2>&1 || RC=$?
if [[ $RC -ne 0 ]]; then
	cat "$T/sbatch.out" "$T/job/out.txt" >&2 2>/dev/null || true
	tail -n 20 "$T/slurmctld.log" "$T/slurmd.log" >&2 2>/dev/null || true
	fail "sbatch --wait: exit $RC"
fi
stop_all

shards=()
for i in 0 1 2 3; do
	f=$R/shards/0000$i.json
	[[ -f "$f" ]] || { cat "$T/job/out.txt" >&2; fail "no report of shard $i"; }
	check_file "$f" "shard.index == $i" 'shard.count == 4' 'requests.total == 1000' \
		'requests.ok == 1000' 'requests.errors == 0' 'statusCodes.200 == 1000' \
		'requestsTarget == 1000' 'connections == 2'
	shards+=("$f")
done
[[ $(find "$R/shards" -type f | wc -l) -eq 4 ]] || fail "not 4 files in $R/shards"
merged=$R/merged.json
[[ -f "$merged" ]] || { cat "$T/job/out.txt" >&2; fail "no merged report"; }
# the total is -n exactly, and the merge is the sum of the shards
check_file "$merged" 'requests.total == 4000' 'requests.ok == 4000' \
	'requests.errors == 0' 'statusCodes.200 == 4000' 'requestsTarget == 4000' \
	'connections == 8' 'shard == null' 'shards.3.shard.index == 3' 'shards.0.requests == 1000' \
	'startSkewSeconds >= 0' 'startSkewSeconds < 2'
python3 "$here/hdr_check.py" "$merged" "${shards[@]}" ||
	fail "the merged report is not the sum of the shard reports"
# the job's output: the text report of the merged run
grep -q '^Requests: *4000 (4000 ok, 0 errors)' "$T/job/out.txt" ||
	{ cat "$T/job/out.txt" >&2; fail "no merged text report in the job's output"; }
grep -qE '^Shards: +4 reports merged, start skew [0-9]+\.[0-9]{3} ms' "$T/job/out.txt" ||
	{ cat "$T/job/out.txt" >&2; fail "no Shards: line in the merged text report"; }
[[ $(grep -cE '^  [0-3]/4 +1000 requests +0 errors ' "$T/job/out.txt") -eq 4 ]] ||
	{ cat "$T/job/out.txt" >&2; fail "not the 4 shard lines in the merged text report"; }
skew=$("$SHB_JCHECK" --get "$merged" startSkewSeconds)
note "merged: $("$SHB_JCHECK" --get "$merged" requests.total) requests, start skew between the 4 shards: $skew s"
echo "ok"
