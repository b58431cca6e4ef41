#!/bin/sh
# The ablation family, as trained for resources/models/ablation.json: baseline / no-FFN /
# 12-layer attention-only at d = 128 (4 heads × 32, SwiGLU width 344), seeds 0, 1, 2,
# every run the same token budget (STEPS × 32 × 128 characters). THREADS torch threads
# (default 1: the shipped d = 256 baseline trains beside it on the other core; 2 once it
# is done). Seed by seed, so that a cut-short session still leaves whole triplets; a
# finished run (summary.json) is skipped and a checkpointed one resumed, so the queue can
# be stopped and started again.
# SEEDS (default "0 1 2") lets a second queue train more seeds beside the first.
#   [THREADS=1] [SEEDS="0 1 2"] sh tools/run_ablation.sh [STEPS] [RUNS_DIR]
set -e
STEPS=${1:-600}
RUNS=${2:-/work/train-runs/ablation}
CORPUS=${CORPUS:-/work/train-data/corpus}
for SEED in ${SEEDS:-0 1 2}; do
  for SPEC in "baseline 4" "no_ffn 4" "attn_only 12"; do
    set -- $SPEC
    RUN=$RUNS/d128-$1-L$2-s$SEED
    if [ -f "$RUN/summary.json" ]; then continue; fi
    RESUME=""
    if [ -f "$RUN/checkpoint.pt" ]; then RESUME="--resume"; fi
    python tools/train_model.py --corpus "$CORPUS" --run "$RUN" --variant "$1" --layers "$2" \
      --d-model 128 --d-ff 344 --seed "$SEED" --steps "$STEPS" --threads "${THREADS:-1}" $RESUME
  done
done
