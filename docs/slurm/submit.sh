#!/bin/sh
# Grade a class on a Slurm cluster: a job array of N tasks, each grading its shard of the
# students (grade batch --shard slurm), then one job, started when all of them succeeded, that
# merges the shards into OUT/class (grades.csv, the reports and the class report).
#
#   sh submit.sh SUBMISSIONS OUT N [grade batch options, e.g. --exercise bpe-train-encode]
#
# GRADE names the grade command when it is not on the compute nodes' PATH (for example
# GRADE=/opt/bpe-autograder/.venv/bin/grade). Prints the two job ids.
set -eu
if [ "$#" -lt 3 ]; then
    echo "usage: sh submit.sh SUBMISSIONS OUT N [grade batch options]" >&2
    exit 2
fi
submissions=$(cd "$1" && pwd) out=$2 shards=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
array=$(sbatch --parsable --array=1-"$shards" --job-name=grade-shard \
    --output="$out/slurm-%A_%a.out" "$here/grade-shard.sbatch" "$submissions" "$out" "$@")
merge=$(sbatch --parsable --dependency=afterok:"$array" --job-name=grade-merge \
    --output="$out/slurm-%j-merge.out" "$here/merge.sbatch" "$out")
echo "$array $merge"
