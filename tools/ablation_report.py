"""Collect the training runs into resources/models/ablation.json and print the table for
resources/models/README.md. NumPy only (it also measures the shipped model's inference-time
FFN knock-outs with core.model, the numbers the app computes live).

    python tools/ablation_report.py --runs /work/train-runs/ablation \\
        --baseline-run /work/train-runs/baseline/d256-baseline-L4-s0 \\
        --model resources/models/baseline.npz --out resources/models/ablation.json
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.model import count_parameters, ffn_ablation_losses, load_model  # noqa: E402

SEED_PAGE = {
    "source": "seed 004 (course page), section 真模型 · 项目实测: 4 layers, d = 256, SwiGLU 688, "
              "a 2,048-token vocabulary (byte-level pieces), trained on 《三國志演義》",
    "baseline": {"params": 3_688_704, "val_loss": 4.626},
    "no_ffn": {"params": 1_574_144, "val_loss": 5.205},
    "attn_only_12": {"params": 3_673_344, "val_loss": 5.330, "param_difference_pct": 0.42},
    "rerun_spread": {"runs": 5, "range": 0.016},
}
KEEP = ("variant", "seed", "n_layers", "d_model", "n_heads", "d_head", "d_ff", "n_ctx", "vocab_size", "params",
        "steps", "planned_steps", "stopped_early", "batch", "tokens_seen", "lr", "train_minutes", "threads",
        "final_train_loss", "val_loss", "val_loss_float16_weights", "val_chars", "torch", "command")


def _summary(run: Path) -> dict:
    data = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    out = {k: data[k] for k in KEEP if k in data}
    out["run"] = run.name
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=Path, required=True, help="folder of ablation run folders")
    ap.add_argument("--baseline-run", type=Path, required=True, help="the shipped model's run folder")
    ap.add_argument("--model", type=Path, required=True, help="the shipped .npz")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-windows", type=int, help="knock-outs on fewer validation windows (a quick check)")
    args = ap.parse_args(argv)

    runs = [_summary(p) for p in sorted(args.runs.iterdir()) if (p / "summary.json").exists()]
    groups: dict[str, list[dict]] = {}
    for r in runs:
        groups.setdefault(f"{r['variant']}_L{r['n_layers']}", []).append(r)
    order = {"baseline_L4": 0, "no_ffn_L4": 1}
    family = {}
    for name, members in sorted(groups.items(), key=lambda kv: (order.get(kv[0], 2), kv[0])):
        losses = [m["val_loss"] for m in members]
        family[name] = {
            "params": members[0]["params"], "n_layers": members[0]["n_layers"], "d_model": members[0]["d_model"],
            "d_ff": members[0]["d_ff"], "seeds": [m["seed"] for m in members], "val_losses": losses,
            "mean": statistics.fmean(losses), "range": max(losses) - min(losses),
            "stdev": statistics.stdev(losses) if len(losses) > 1 else None,
            "tokens_seen_each": members[0]["tokens_seen"], "train_minutes_each": [m["train_minutes"] for m in members],
        }
    base = family.get("baseline_L4")
    if base:
        for name, f in family.items():
            f["param_difference_vs_baseline_pct"] = 100 * (f["params"] - base["params"]) / base["params"]
            f["loss_minus_baseline"] = f["mean"] - base["mean"]

    model = load_model(args.model)
    started = time.monotonic()
    knockouts = ffn_ablation_losses(model, max_windows=args.max_windows)
    shipped = _summary(args.baseline_run)
    shipped.update({
        "file": args.model.name, "file_bytes": args.model.stat().st_size,
        "val_loss_numpy": knockouts["baseline"],
        "inference_ffn_knockouts_numpy": knockouts,
        "knockout_seconds": round(time.monotonic() - started, 1),
    })
    d = 256
    report = {
        "format": "blocklab-ablation", "version": 1,
        "loss": "mean next-character cross-entropy (nats) on the held-out validation split, non-overlapping "
                "windows of 129 characters (128 predictions each)",
        "seed_page": SEED_PAGE,
        "parameter_counts_d256": {
            "baseline": count_parameters(2048, 4, d, 4, 64, 688),
            "no_ffn": count_parameters(2048, 4, d, 4, 64, 0),
            "attn_only_12": count_parameters(2048, 12, d, 4, 64, 0),
        },
        "shipped_model": shipped,
        "ablation_family": family,
        "runs": runs,
    }
    args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    print("| variant | params | Δ params | seeds | val loss per seed | mean | range |")
    print("|---|---:|---:|---|---|---:|---:|")
    for name, f in family.items():
        losses = ", ".join(f"{x:.3f}" for x in f["val_losses"])
        print(f"| {name} (d={f['d_model']}) | {f['params']:,} | {f.get('param_difference_vs_baseline_pct', 0):+.2f} % "
              f"| {', '.join(map(str, f['seeds']))} | {losses} | {f['mean']:.3f} | {f['range']:.3f} |")
    print()
    print("inference knock-outs on the shipped model:", json.dumps({k: round(v, 4) for k, v in knockouts.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
