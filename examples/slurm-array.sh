#!/bin/bash
# A Slurm job array running an npyflow job as 16 shards.
#
#   npyflow plan job.yaml --out plan.json --shards 16   # once, on the login node
#   sbatch slurm-array.sh                               # the 16 tasks
#
# Each array task is one shard: the shard is SLURM_ARRAY_TASK_ID (minus
# --index-base, 0 by default) of the plan's 16 shards. The array's size
# and first index are never used, so any task can be re-submitted on its
# own, by index, and finishes its shard with --resume:
#
#   sbatch --array=5 slurm-array.sh      # re-run task 5 (shard 5)
#   sbatch --array=3,9 slurm-array.sh    # or several
#
# Numbering the array from 1 instead (--array=1-16) needs --index-base 1:
#   sbatch --array=1-16 slurm-array.sh --index-base 1
#   sbatch --array=6 slurm-array.sh --index-base 1     # shard 5 again
#
# A requeued task (scontrol requeue, preemption, a node failure) also
# resumes: it skips the inputs it committed at its last checkpoint.
#
# Committing. The last task to finish commits the run (verifies every
# manifest, publishes the outputs, writes _SUCCESS); after a failure,
# that is the re-submitted task, once it succeeds. To commit in a
# separate job instead, give the tasks --no-commit and make the commit
# depend on them:
#
#   ARRAY=$(sbatch --parsable slurm-array.sh --no-commit)
#   sbatch --dependency=afterok:$ARRAY --kill-on-invalid-dep=yes \
#          --wrap "npyflow commit --plan plan.json"
#
# If a task fails, Slurm never runs an afterok job (the dependency can no
# longer be satisfied, even after the task is requeued and succeeds);
# --kill-on-invalid-dep=yes cancels it instead of leaving it pending.
# Re-submit the failed tasks and the commit after them:
#
#   FIX=$(sbatch --parsable --array=5 slurm-array.sh --no-commit)
#   sbatch --dependency=afterok:$FIX --wrap "npyflow commit --plan plan.json"
#
# (or run `npyflow commit --plan plan.json` by hand: it refuses, naming
# the unfinished shards, until every shard has finished).
#
#SBATCH --job-name=npyflow
#SBATCH --array=0-15
#SBATCH --cpus-per-task=4
#SBATCH --mem=4G
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=npyflow-%A_%a.log

set -euo pipefail
export GOMAXPROCS="${SLURM_CPUS_PER_TASK:-4}"
# Extra arguments (--no-commit, --index-base 1) are passed to npyflow run.
exec npyflow run --plan plan.json --resume --workers "$GOMAXPROCS" "$@"
