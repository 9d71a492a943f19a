#!/bin/bash
# A Slurm job array running an npyflow job as 16 shards.
#
#   npyflow plan job.yaml --out plan.json --shards 16   # once, on the login node
#   sbatch slurm-array.sh
#
# Each array task is one shard: npyflow reads SLURM_ARRAY_TASK_ID (minus
# SLURM_ARRAY_TASK_MIN, so --array=1-16 works too) and checks
# SLURM_ARRAY_TASK_COUNT against the plan. A requeued or re-submitted task
# runs with --resume and skips the inputs it already committed. The last
# task to finish commits the run (verifies every manifest, publishes the
# outputs, writes _SUCCESS). To commit in a separate step instead, add
# --no-commit below and submit:
#   sbatch --dependency=afterok:<array job id> --wrap "npyflow commit --plan plan.json"
#
#SBATCH --job-name=npyflow
#SBATCH --array=0-15
#SBATCH --cpus-per-task=4
#SBATCH --mem=4G
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --output=npyflow-%A_%a.log

set -euo pipefail
export GOMAXPROCS="${SLURM_CPUS_PER_TASK:-4}"
exec npyflow run --plan plan.json --resume --workers "$GOMAXPROCS"
