#!/usr/bin/env bash
# make test-slurm: sharded npyflow runs under a real, single-node Slurm.
#
# Installs slurm-wlm and munge with apt when missing (and curl, node and
# numpy for python3; DuckDB's node API with npm, cached in
# ~/.cache/npyflow/duckdb), then starts, in a scratch directory, a
# munged with its own key and socket, slurmctld -D and slurmd -D on free
# ports (no systemd), and SeaweedFS
# (scripts/seaweedfs.sh). It runs examples/slurm-array.sh as it is and
# the faults docs/scale.md describes, each on inputs numpy writes
# (scripts/slurm/gen_inputs.py), and checks every committed dataset with
# DuckDB against numpy's aggregates (scripts/slurm/check.mjs):
#
#   example    16 tasks of the example, the last one commits
#   missing    an input missing: only its task fails, the commit
#              refuses; the input put back, `sbatch --array=2` of that
#              one index resumes the shard and commits
#   scancel    an array numbered from 1 (--index-base 1): one running
#              task cancelled after a checkpoint says what it kept;
#              re-submitted alone by index, it resumes and commits
#   requeue    `scontrol requeue` of a running task: it resumes from its
#              checkpoints, no row twice
#   dependent  --no-commit tasks and an afterok commit job: a task
#              fails, the commit job is cancelled; the failed index and a
#              new commit job after it commit the run
#   bucket     inputs, plan, state and dataset in SeaweedFS, the tasks
#              with nothing but the plan's URL (the job's ${VAR}s come
#              from the plan); one task cancelled and re-submitted, a
#              dependent commit job
#
# SCENARIOS="missing bucket" runs only those. Stops exactly the
# processes it started (also on failure or Ctrl-C) and removes the
# scratch directory unless KEEP=1 or a check failed. Needs root (slurmd
# runs jobs as their submitter, munged wants its own key). About 4 to 10
# minutes, nearly all of it Slurm scheduling and building npyflow.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
CACHE=${NPYFLOW_CACHE:-$HOME/.cache/npyflow}
MODS=${NPYFLOW_DUCKDB_MODULES:-$CACHE/duckdb}
START=$SECONDS
S=$(mktemp -d /tmp/npyflow-slurm.XXXXXX)
PIDS=()
FAILED=1

log() { printf '[%4ds] %s\n' $((SECONDS - START)) "$*"; }
die() {
	log "FAIL: $*"
	exit 1
}

cleanup() {
	local rc=$?
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	if [[ $FAILED == 1 ]]; then
		log "logs kept in $S (slurm/slurmctld.log, slurm/slurmd.log, */npyflow-*.log)"
		[[ -f $S/slurm/slurmctld.log ]] && tail -15 "$S/slurm/slurmctld.log"
	elif [[ ${KEEP:-0} != 1 ]]; then
		rm -rf "$S"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[[ $(id -u) == 0 ]] || die "run as root (slurmd runs the jobs as their submitter; munged needs its own key)"

# --- what it needs -----------------------------------------------------
PKGS=()
command -v slurmctld >/dev/null || PKGS+=(slurm-wlm)
command -v munged >/dev/null || PKGS+=(munge)
command -v curl >/dev/null || PKGS+=(curl)
command -v npm >/dev/null || PKGS+=(nodejs npm)
/usr/bin/python3 -c 'import numpy' 2>/dev/null || PKGS+=(python3-numpy)
if [[ ${#PKGS[@]} -gt 0 ]]; then
	log "installing ${PKGS[*]}"
	apt-get install -y "${PKGS[@]}" >"$S/apt.log" 2>&1 ||
		{ apt-get update >>"$S/apt.log" 2>&1 && apt-get install -y "${PKGS[@]}" >>"$S/apt.log" 2>&1; } ||
		die "apt-get install ${PKGS[*]} failed (see $S/apt.log)"
fi
if [[ ! -d $MODS/node_modules/@duckdb/node-api ]]; then
	log "installing @duckdb/node-api in $MODS"
	mkdir -p "$MODS"
	(cd "$MODS" && { [[ -f package.json ]] || npm init -y >/dev/null; } && npm install --no-audit --no-fund @duckdb/node-api >/dev/null) ||
		die "npm install @duckdb/node-api failed"
fi
log "building npyflow"
mkdir -p "$S/bin"
go build -o "$S/bin/npyflow" ./cmd/npyflow
export PATH=$S/bin:$PATH
# The tasks inherit this environment: no shard variable may leak in.
for v in $(compgen -e); do [[ $v == SLURM_* || $v == NPYFLOW_* ]] && unset "$v"; done
EXAMPLE=$REPO/examples/slurm-array.sh

# --- munge and Slurm ---------------------------------------------------
free_port() {
	local p
	for _ in $(seq 200); do
		p=$((20000 + RANDOM % 30000))
		(exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo $p; return; }
	done
	die "no free port"
}

M=$S/munge
mkdir -p "$M" && chmod 0755 "$M"
head -c 1024 /dev/urandom >"$M/munge.key" && chmod 0400 "$M/munge.key"
munged -F --force --socket="$M/munge.sock" --key-file="$M/munge.key" --pid-file="$M/munged.pid" \
	--seed-file="$M/munged.seed" --log-file="$M/munged.log" >"$M/munged.out" 2>&1 &
PIDS+=($!)
for i in $(seq 100); do
	munge -S "$M/munge.sock" -n 2>/dev/null | unmunge -S "$M/munge.sock" >/dev/null 2>&1 && break
	[[ $i == 100 ]] && die "munged did not start: $(cat "$M/munged.out" "$M/munged.log" 2>/dev/null)"
	sleep 0.1
done

HOST=$(hostname -s)
C=$S/slurm
mkdir -p "$C/state" "$C/spool"
export SLURM_CONF=$C/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=npyflowtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$M/munge.sock,cred_expire=10
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool
SlurmctldPidFile=$C/slurmctld.pid
SlurmdPidFile=$C/slurmd.pid
SlurmctldLogFile=$C/slurmctld.log
SlurmdLogFile=$C/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0,sched_interval=2
ReturnToService=2
MinJobAge=3600
KillWait=10
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SlurmdParameters=config_overrides
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=4 RealMemory=8000 State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" >"$C/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -N "$HOST" -f "$SLURM_CONF" >"$C/slurmd.out" 2>&1 &
PIDS+=($!)
for i in $(seq 120); do
	[[ $(sinfo -h -o %T 2>/dev/null) == idle ]] && break
	[[ $i == 120 ]] && die "the node did not come up: $(sinfo 2>&1; tail -5 "$C/slurmctld.log" "$C/slurmd.log")"
	sleep 0.5
done
log "slurm up: node $HOST idle"

# --- helpers -------------------------------------------------------------

# states JOB prints "task state exitcode" for each task of an array job
# (or "- state exitcode" for a plain job), from scontrol.
states() {
	scontrol show job "$1" 2>/dev/null | awk '
		/^JobId=/ { if (st != "") print (t == "" ? "-" : t), st, ec; t = ""; st = ""; ec = "" }
		{ for (i = 1; i <= NF; i++) {
			if ($i ~ /^ArrayTaskId=/) t = substr($i, 13)
			if ($i ~ /^JobState=/) st = substr($i, 10)
			if ($i ~ /^ExitCode=/) ec = substr($i, 10)
		} }
		END { if (st != "") print (t == "" ? "-" : t), st, ec }'
}

# wait_job JOB waits until no task of JOB is pending or running.
wait_job() {
	for i in $(seq 900); do
		if ! states "$1" | grep -qE ' (PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|SUSPENDED|RESIZING)'; then
			return 0
		fi
		sleep 1
	done
	states "$1"
	die "job $1 still running after 15 minutes"
}

# expect_states JOB "0 COMPLETED" "2 FAILED" ...: each task's state.
expect_states() {
	local job=$1 got
	shift
	got=$(states "$job")
	for want in "$@"; do
		grep -qE "^$want( |\$)" <<<"$got" || die "job $job: want task $want, got:"$'\n'"$got"
	done
}

# wait_log FILE TEXT waits until FILE holds TEXT.
wait_log() {
	for _ in $(seq 600); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	die "$1 never said '$2'"
}

# has FILE TEXT...: FILE holds every TEXT.
has() {
	local f=$1
	shift
	for t in "$@"; do grep -qF -- "$t" "$f" || die "$f does not say '$t':"$'\n'"$(cat "$f")"; done
}

# committed DIR: exactly one "committed run" line in DIR's logs.
committed_once() {
	local n
	n=$(cat "$1"/*.log | grep -c '^committed run ' || true)
	[[ $n == 1 ]] || die "$1: $n 'committed run' lines in the logs, want 1"
}

check() {
	local out
	out=$(node "$REPO/scripts/slurm/check.mjs" "$1" "$2" "$MODS" 2>&1) || die "$out"
	log "  $out"
}

# write_job DIR PATHS SINK writes DIR/job.yaml: the inputs PATHS as a
# partitioned dataset SINK.
write_job() {
	cat >"$1/job.yaml" <<EOF
version: 1
sources:
  frames:
    type: npy
    paths: $2
sinks:
  table:
    type: parquet
    input: frames
    path: $3
    partition_by: [site, station]
    mode: overwrite
EOF
}

# scenario NAME FILES SHARDS: a directory with FILES inputs, the job and
# its plan of SHARDS shards.
scenario() {
	local d=$S/$1
	mkdir -p "$d"
	/usr/bin/python3 "$REPO/scripts/slurm/gen_inputs.py" "$d" "$2"
	write_job "$d" 'archive/{site}/run_{run:int}.npy' out/frames
	(cd "$d" && npyflow plan job.yaml --out plan.json --shards "$3" >plan.out)
	echo "$d"
}

# input_of DIR SHARD: the first planned input of a shard.
input_of() {
	/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(next(i["path"] for i in p["inputs"] if i["shard"]==int(sys.argv[2])))' "$1/plan.json" "$2"
}

SMALL=(--cpus-per-task=1 --mem=500M)

# want NAME: the scenario is in $SCENARIOS (default: all of them).
want() { [[ -z ${SCENARIOS:-} || " $SCENARIOS " == *" $1 "* ]]; }

# --- example: the example as it is ---------------------------------------
if want example; then
	log "example: examples/slurm-array.sh, 16 tasks, the last commits"
	D=$(scenario example 32 16)
	JOB=$(sbatch --parsable --chdir="$D" "$EXAMPLE")
	wait_job "$JOB"
	expect_states "$JOB" "0 COMPLETED 0:0" "7 COMPLETED 0:0" "15 COMPLETED 0:0"
	[[ $(states "$JOB" | grep -c ' COMPLETED 0:0') == 16 ]] || die "example: $(states "$JOB")"
	committed_once "$D"
	check "$D/out/frames" "$D/expected.json"
fi

# --- missing: one input missing fails one shard ----------------------------
if want missing; then
	log "missing: an input of shard 2 missing"
	D=$(scenario missing 16 4)
	VICTIM=$(input_of "$D" 2)
	mv "$VICTIM" "$D/victim.npy" # mv keeps the mtime the plan has
	JOB=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --array=0-3 "$EXAMPLE")
	wait_job "$JOB"
	expect_states "$JOB" "0 COMPLETED" "1 COMPLETED" "2 FAILED" "3 COMPLETED"
	has "$D/npyflow-${JOB}_2.log" "shard 2/4: planned input $VICTIM: no such file or directory"
	if (cd "$D" && npyflow commit --plan plan.json >commit.out 2>&1); then die "missing: commit without shard 2"; fi
	has "$D/commit.out" "no manifest from shard(s) 2 of 4"
	mv "$D/victim.npy" "$VICTIM"
	FIX=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --array=2 "$EXAMPLE")
	wait_job "$FIX"
	expect_states "$FIX" "2 COMPLETED 0:0"
	has "$D/npyflow-${FIX}_2.log" "shard 2/4 from SLURM_ARRAY_TASK_ID=2" "committed run"
	committed_once "$D"
	check "$D/out/frames" "$D/expected.json"
fi

# --- scancel: an array numbered from 1, one task cancelled, re-submitted ---
if want scancel; then
	log "scancel: --array=1-4 --index-base 1, task 3 (shard 2) cancelled and re-submitted"
	D=$(scenario scancel 16 4)
	JOB=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --array=1-4 --export=ALL,NPYFLOW_TEST_INPUT_DELAY=1s \
		"$EXAMPLE" --index-base 1 --checkpoint-bytes 1)
	wait_log "$D/npyflow-${JOB}_3.log" "checkpoint 1: shard 2/4"
	scancel "${JOB}_3"
	wait_job "$JOB"
	expect_states "$JOB" "1 COMPLETED" "2 COMPLETED" "3 CANCELLED" "4 COMPLETED"
	has "$D/npyflow-${JOB}_3.log" "shard 2/4 from SLURM_ARRAY_TASK_ID=3" "checkpoint(s) kept for --resume (shard 2/4:"
	if (cd "$D" && npyflow commit --plan plan.json >commit.out 2>&1); then die "scancel: commit without shard 2"; fi
	has "$D/commit.out" "shard(s) not finished: 2"
	FIX=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --array=3 "$EXAMPLE" --index-base 1 --checkpoint-bytes 1)
	wait_job "$FIX"
	expect_states "$FIX" "3 COMPLETED 0:0"
	has "$D/npyflow-${FIX}_3.log" "shard 2/4 from SLURM_ARRAY_TASK_ID=3" "already committed" "committed run"
	committed_once "$D"
	check "$D/out/frames" "$D/expected.json"
fi

# --- requeue: a running task requeued resumes -------------------------------
if want requeue; then
	log "requeue: scontrol requeue of a running task"
	D=$(scenario requeue 16 4)
	JOB=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --array=0-3 --export=ALL,NPYFLOW_TEST_INPUT_DELAY=1s "$EXAMPLE" --checkpoint-bytes 1)
	wait_log "$D/npyflow-${JOB}_1.log" "checkpoint 1: shard 1/4"
	scontrol requeue "${JOB}_1"
	wait_job "$JOB"
	expect_states "$JOB" "0 COMPLETED 0:0" "1 COMPLETED 0:0" "2 COMPLETED 0:0" "3 COMPLETED 0:0"
	has "$D/npyflow-${JOB}_1.log" "checkpoint(s) kept for --resume (shard 1/4:" "already committed"
	committed_once "$D"
	check "$D/out/frames" "$D/expected.json"
fi

# --- dependent: a commit job after a failure ---------------------------------
if want dependent; then
	log "dependent: --no-commit tasks, afterok commit job, a task fails"
	D=$(scenario dependent 16 4)
	VICTIM=$(input_of "$D" 1)
	mv "$VICTIM" "$D/victim.npy"
	JOB=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --array=0-3 "$EXAMPLE" --no-commit)
	CJ=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --dependency=afterok:$JOB --kill-on-invalid-dep=yes \
		--output=commit-%j.log --wrap "npyflow commit --plan plan.json")
	wait_job "$JOB"
	expect_states "$JOB" "0 COMPLETED" "1 FAILED" "2 COMPLETED" "3 COMPLETED"
	wait_job "$CJ"
	expect_states "$CJ" "- CANCELLED"
	has "$D/npyflow-${JOB}_0.log" "staged, not published (--no-commit)"
	mv "$D/victim.npy" "$VICTIM"
	FIX=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --array=1 "$EXAMPLE" --no-commit)
	CJ=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --dependency=afterok:$FIX --kill-on-invalid-dep=yes \
		--output=commit-%j.log --wrap "npyflow commit --plan plan.json")
	wait_job "$CJ"
	expect_states "$FIX" "1 COMPLETED 0:0"
	expect_states "$CJ" "- COMPLETED 0:0"
	has "$D/commit-$CJ.log" "committed run"
	committed_once "$D"
	check "$D/out/frames" "$D/expected.json"
fi

# --- bucket: inputs, plan, state and dataset in SeaweedFS --------------------
if want bucket; then
	log "bucket: starting SeaweedFS"
	out=$(BUCKET=npyflow scripts/seaweedfs.sh start "$S/weed") || die "SeaweedFS did not start"
	eval "$out"
	PIDS+=("$WEED_PID")
	EP=$NPYFLOW_S3_ENDPOINT
	log "bucket: inputs, plan, state and dataset in $EP"
	P=slurm-$(date +%s)
	D=$S/bucket
	mkdir -p "$D"
	/usr/bin/python3 "$REPO/scripts/slurm/gen_inputs.py" "$D" 16
	for f in "$D"/archive/*/*.npy; do
		curl -sf -T "$f" "$EP/npyflow/$P/in/${f#"$D"/}" || die "upload of $f"
	done
	Q="endpoint=$(/usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$EP")&region=us-east-1&disable_https=true"
	IN="s3://npyflow/$P/in/archive/{site}/run_{run:int}.npy?$Q"
	DS="s3://npyflow/$P/frames?$Q"
	PLAN="s3://npyflow/$P/plans/frames.json?$Q"
	write_job "$D" '${IN}' '${DS}'
	export AWS_ACCESS_KEY_ID=npyflow AWS_SECRET_ACCESS_KEY=npyflow-test AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
	# docs/scale.md section 5: the plan made with the variables set ...
	(cd "$D" && IN=$IN DS=$DS npyflow plan job.yaml --out "$PLAN" --shards 4 >plan.out)
	# ... and tasks that have nothing but the plan's URL (and credentials).
	TASKENV=PATH=$S/bin:/usr/bin:/bin,HOME=$HOME,AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY,AWS_REGION,AWS_EC2_METADATA_DISABLED
	RUN="npyflow run --plan '$PLAN' --resume --no-commit --checkpoint-bytes 1"
	JOB=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --array=0-3 --output=npyflow-%A_%a.log --open-mode=append \
		--export="$TASKENV,NPYFLOW_TEST_INPUT_DELAY=1s" --wrap "$RUN")
	CJ=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --dependency=afterok:$JOB --kill-on-invalid-dep=yes \
		--output=commit-%j.log --export="$TASKENV" --wrap "npyflow commit --plan '$PLAN'")
	wait_log "$D/npyflow-${JOB}_3.log" "checkpoint 1: shard 3/4"
	scancel "${JOB}_3"
	wait_job "$JOB"
	expect_states "$JOB" "0 COMPLETED 0:0" "1 COMPLETED 0:0" "2 COMPLETED 0:0" "3 CANCELLED"
	has "$D/npyflow-${JOB}_3.log" "checkpoint(s) kept for --resume (shard 3/4:"
	wait_job "$CJ"
	expect_states "$CJ" "- CANCELLED"
	FIX=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --array=3 --output=npyflow-%A_%a.log --export="$TASKENV" --wrap "$RUN")
	CJ=$(sbatch --parsable --chdir="$D" "${SMALL[@]}" --dependency=afterok:$FIX --kill-on-invalid-dep=yes \
		--output=commit-%j.log --export="$TASKENV" --wrap "npyflow commit --plan '$PLAN'")
	wait_job "$CJ"
	expect_states "$FIX" "3 COMPLETED 0:0"
	expect_states "$CJ" "- COMPLETED 0:0"
	has "$D/npyflow-${FIX}_3.log" "already committed"
	has "$D/commit-$CJ.log" "committed run"
	committed_once "$D"
	check "$EP/npyflow/$P/frames" "$D/expected.json"
fi

FAILED=0
log "PASS: make test-slurm (${SCENARIOS:-example missing scancel requeue dependent bucket}) in $((SECONDS - START)) s"
