"""Train Block Lab's small character-level model (PyTorch; the optional `[train]` extra).

    pip install -e .[train]            # torch>=2.1,<=2.13.0 (the CPU wheel)
    python tools/prepare_corpus.py chinese-poetry-2.0.1.tgz --out /work/train-data/corpus
    python tools/train_model.py --corpus /work/train-data/corpus --run /work/train-runs/baseline \\
        --variant baseline --steps 1500 --export resources/models/baseline.npz

The model (the seed 004 family, so the parameter counts come out exactly):
decoder-only; n_layers blocks of  x += attn(rms1(x));  x += ffn(rms2(x));  then a final
RMSNorm and logits = rms_final(x) · W_Eᵀ (tied embeddings). RMSNorm: x / √(mean x² + ε) · w
with ε = 1e-5. Attention: causal, scaled by 1/√d_head, rotary positions (GPT-NeoX / Llama
"rotate_half" on the full d_head: θ_i = base^(−2i/d_head) for i < d_head/2, the pair
(x_i, x_{i+d_head/2}) at position p rotated by p·θ_i; applied to q and k after the
projection, before the scores; base 10000). SwiGLU FFN: hidden = silu(x·W_gate) ⊙ (x·W_in),
out = hidden · W_out. No biases anywhere; no position table.

Variants: `baseline` (attention + FFN), `no_ffn` (attention only: no FFN, no ln2), and
`attn_only` (the same as no_ffn, meant with more layers, e.g. --layers 12, to match the
baseline's parameter count).

Only tools/ and its test import torch; the app and core never do.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

EPS = 1e-5
ROTARY_BASE = 10000.0
REFERENCE_TEXT = "床前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。\n春眠不覺曉，處處聞啼鳥。夜來風雨聲，花落知多少。"
FORMAT = "blocklab-model"
FORMAT_VERSION = 1


# ----------------------------------------------------------------------------- data

def read_vocab(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    return ["\n" if line == "\\n" else line for line in lines]


def encode(text: str, vocab: list[str]) -> np.ndarray:
    index = {ch: i for i, ch in enumerate(vocab) if i != 0}
    return np.fromiter((index.get(ch, 0) for ch in text), dtype=np.uint16, count=len(text))


# ---------------------------------------------------------------------------- model

def rotary_tables(n_ctx: int, d_head: int, base: float = ROTARY_BASE) -> tuple[torch.Tensor, torch.Tensor]:
    half = d_head // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_head)
    angles = torch.arange(n_ctx, dtype=torch.float64)[:, None] * theta[None, :]       # (T, dh/2)
    angles = torch.cat([angles, angles], dim=-1)                                        # (T, dh)
    return torch.cos(angles).float(), torch.sin(angles).float()


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x: (..., T, dh). rotate_half: (x1, x2) -> (−x2, x1) on the two halves."""
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin


class RMSNorm(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.w = nn.Parameter(torch.ones(d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * self.w


class Block(nn.Module):
    def __init__(self, d: int, n_heads: int, d_head: int, d_ff: int):
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_head
        self.ln1 = RMSNorm(d)
        # Stored as d×(H·dh) / (H·dh)×d; the export reshapes to H×d×dh / H×dh×d.
        self.W_Q = nn.Parameter(torch.empty(d, n_heads * d_head))
        self.W_K = nn.Parameter(torch.empty(d, n_heads * d_head))
        self.W_V = nn.Parameter(torch.empty(d, n_heads * d_head))
        self.W_O = nn.Parameter(torch.empty(n_heads * d_head, d))
        self.d_ff = d_ff
        if d_ff:
            self.ln2 = RMSNorm(d)
            self.W_in = nn.Parameter(torch.empty(d, d_ff))
            self.W_gate = nn.Parameter(torch.empty(d, d_ff))
            self.W_out = nn.Parameter(torch.empty(d_ff, d))

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        B, T, d = x.shape
        h = self.ln1(x)

        def heads(w: torch.Tensor) -> torch.Tensor:
            return (h @ w).view(B, T, self.n_heads, self.d_head).transpose(1, 2)   # B,H,T,dh

        q = apply_rotary(heads(self.W_Q), cos[:T], sin[:T])
        k = apply_rotary(heads(self.W_K), cos[:T], sin[:T])
        v = heads(self.W_V)
        z = F.scaled_dot_product_attention(q, k, v, is_causal=True)                 # scale 1/√dh
        x = x + z.transpose(1, 2).reshape(B, T, -1) @ self.W_O
        if self.d_ff:
            h = self.ln2(x)
            x = x + (F.silu(h @ self.W_gate) * (h @ self.W_in)) @ self.W_out
        return x


class Model(nn.Module):
    def __init__(self, vocab_size: int, n_layers: int, d_model: int, n_heads: int, d_head: int,
                 d_ff: int, n_ctx: int):
        super().__init__()
        self.hparams = dict(vocab_size=vocab_size, n_layers=n_layers, d_model=d_model,
                            n_heads=n_heads, d_head=d_head, d_ff=d_ff, n_ctx=n_ctx)
        self.W_E = nn.Parameter(torch.empty(vocab_size, d_model))
        self.blocks = nn.ModuleList(Block(d_model, n_heads, d_head, d_ff) for _ in range(n_layers))
        self.ln_final = RMSNorm(d_model)
        cos, sin = rotary_tables(n_ctx, d_head)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def init_weights(self, seed: int) -> None:
        g = torch.Generator().manual_seed(seed)
        n_layers = len(self.blocks)
        # Output projections (W_O, W_out) get 0.02/√(2·n_layers), GPT-2's residual scaling:
        # 0.02/√8 = 0.00707 for 4 layers, the seed's figure.
        out_std = 0.02 / math.sqrt(2 * n_layers)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith(".w"):
                    p.fill_(1.0)
                elif name.endswith(("W_O", "W_out")):
                    p.normal_(0.0, out_std, generator=g)
                else:
                    p.normal_(0.0, 0.02, generator=g)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.W_E[ids]
        for block in self.blocks:
            x = block(x, self.cos, self.sin)
        return self.ln_final(x) @ self.W_E.T


def count_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


VARIANTS = ("baseline", "no_ffn", "attn_only")


def build(variant: str, vocab_size: int, layers: int, d_model: int, d_ff: int, n_ctx: int,
          n_heads: int = 4) -> Model:
    if variant not in VARIANTS:
        raise ValueError(f"variant: expected one of {VARIANTS}, got {variant!r}")
    if d_model % n_heads:
        raise ValueError(f"d_model {d_model} is not divisible by {n_heads} heads")
    return Model(vocab_size, layers, d_model, n_heads, d_model // n_heads,
                 d_ff if variant == "baseline" else 0, n_ctx)


# --------------------------------------------------------------------------- export

def export_arrays(model: Model) -> dict[str, np.ndarray]:
    """Weights under DESIGN.md's names, float16, shaped as TransformerLens does."""
    hp = model.hparams
    H, dh, d = hp["n_heads"], hp["d_head"], hp["d_model"]
    out: dict[str, np.ndarray] = {}

    def f16(t: torch.Tensor) -> np.ndarray:
        return t.detach().cpu().float().numpy().astype(np.float16)

    out["embed.W_E"] = f16(model.W_E)
    for i, b in enumerate(model.blocks):
        p = f"blocks.{i}."
        out[p + "ln1.w"] = f16(b.ln1.w)
        for name in ("W_Q", "W_K", "W_V"):
            out[p + name] = f16(getattr(b, name).view(d, H, dh).permute(1, 0, 2))     # H×d×dh
        out[p + "W_O"] = f16(b.W_O.view(H, dh, d))                                    # H×dh×d
        if b.d_ff:
            out[p + "ln2.w"] = f16(b.ln2.w)
            out[p + "W_in"] = f16(b.W_in)
            out[p + "W_gate"] = f16(b.W_gate)
            out[p + "W_out"] = f16(b.W_out)
    out["ln_final.w"] = f16(model.ln_final.w)
    return out


def load_rounded(model: Model, arrays: dict[str, np.ndarray]) -> Model:
    """A float32 copy of `model` whose weights are the float16-rounded exported ones."""
    hp = model.hparams
    copy = Model(**hp)
    H, dh, d = hp["n_heads"], hp["d_head"], hp["d_model"]

    def t(name: str) -> torch.Tensor:
        return torch.from_numpy(arrays[name].astype(np.float32))

    with torch.no_grad():
        copy.W_E.copy_(t("embed.W_E"))
        copy.ln_final.w.copy_(t("ln_final.w"))
        for i, b in enumerate(copy.blocks):
            p = f"blocks.{i}."
            b.ln1.w.copy_(t(p + "ln1.w"))
            for name in ("W_Q", "W_K", "W_V"):
                getattr(b, name).copy_(t(p + name).permute(1, 0, 2).reshape(d, H * dh))
            b.W_O.copy_(t(p + "W_O").reshape(H * dh, d))
            if b.d_ff:
                b.ln2.w.copy_(t(p + "ln2.w"))
                b.W_in.copy_(t(p + "W_in"))
                b.W_gate.copy_(t(p + "W_gate"))
                b.W_out.copy_(t(p + "W_out"))
    return copy.eval()


@torch.no_grad()
def val_loss(model: Model, val_ids: np.ndarray, batch: int = 16, max_windows: int | None = None) -> float:
    """Mean next-character cross-entropy (nats) over non-overlapping windows of n_ctx+1
    characters (the first character of each window is context only); the same windowing
    core.model.validation_loss uses. Unknown targets count like any other."""
    n_ctx = model.hparams["n_ctx"]
    ids = torch.from_numpy(val_ids.astype(np.int64))
    starts = list(range(0, len(ids) - 1, n_ctx))
    if max_windows:
        starts = starts[:max_windows]
    total, count = 0.0, 0
    model.eval()
    for k in range(0, len(starts), batch):
        chunk = [ids[s:s + n_ctx + 1] for s in starts[k:k + batch]]
        same = [c for c in chunk if len(c) == n_ctx + 1]     # the ragged last window runs alone
        rest = [c for c in chunk if len(c) != n_ctx + 1]
        if same:
            x = torch.stack(same)
            logits = model(x[:, :-1])
            total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1),
                                     reduction="sum").item()
            count += x[:, 1:].numel()
        for c in rest:
            logits = model(c[None, :-1])
            total += F.cross_entropy(logits[0], c[1:], reduction="sum").item()
            count += len(c) - 1
    model.train()
    return total / count


def export(model: Model, vocab: list[str], val_ids: np.ndarray, path: Path, meta: dict) -> dict:
    arrays = export_arrays(model)
    rounded = load_rounded(model, arrays)
    ref_text = REFERENCE_TEXT[: model.hparams["n_ctx"]]
    ref_ids = encode(ref_text, vocab)
    with torch.no_grad():
        ref_logits = rounded(torch.from_numpy(ref_ids.astype(np.int64))[None])[0].numpy().astype(np.float32)
    hp = model.hparams
    rounded_val = val_loss(rounded, val_ids)
    meta = dict(meta, val_loss_float16_weights=rounded_val)
    arrays.update({
        "format": np.array(FORMAT),
        "format_version": np.array(FORMAT_VERSION, dtype=np.int64),
        "vocab": np.array(vocab, dtype=f"<U1"),
        "config.n_layers": np.array(hp["n_layers"], dtype=np.int64),
        "config.d_model": np.array(hp["d_model"], dtype=np.int64),
        "config.n_heads": np.array(hp["n_heads"], dtype=np.int64),
        "config.d_head": np.array(hp["d_head"], dtype=np.int64),
        "config.d_ff": np.array(hp["d_ff"], dtype=np.int64),
        "config.n_ctx": np.array(hp["n_ctx"], dtype=np.int64),
        "config.vocab_size": np.array(hp["vocab_size"], dtype=np.int64),
        "config.unk_id": np.array(0, dtype=np.int64),
        "config.eps": np.array(EPS, dtype=np.float64),
        "config.rotary_base": np.array(ROTARY_BASE, dtype=np.float64),
        "val_ids": val_ids.astype(np.uint16),
        "reference.text": np.array(ref_text),
        "reference.ids": ref_ids.astype(np.uint16),
        "reference.logits": ref_logits,
        "meta": np.array(json.dumps(meta, ensure_ascii=False, sort_keys=True)),
    })
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)
    return meta


# ---------------------------------------------------------------------------- train

def lr_at(step: int, total: int, peak: float, warmup: int) -> float:
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def progress_bar(step: int, total: int, loss: float, elapsed: float) -> str:
    width = 30
    done = int(width * step / max(1, total))
    rate = step / elapsed if elapsed > 0 else 0.0
    eta = (total - step) / rate if rate > 0 else float("nan")
    return (f"\r[{'#' * done}{'.' * (width - done)}] {step}/{total} loss {loss:.3f} "
            f"{rate:.2f} step/s eta {eta / 60:.1f} min")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Train Block Lab's small character model.")
    ap.add_argument("--corpus", type=Path, default=Path("/work/train-data/corpus"),
                    help="the folder tools/prepare_corpus.py wrote (train.txt, val.txt, vocab.txt)")
    ap.add_argument("--run", type=Path, required=True, help="run folder: checkpoint, loss log, summary")
    ap.add_argument("--variant", choices=VARIANTS, default="baseline")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d-ff", type=int, default=688)
    ap.add_argument("--ctx", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, help="optimizer steps (the schedule's length)")
    ap.add_argument("--minutes", type=float, help="stop (and export) after this much training time "
                    "even if --steps are not done; with no --steps, the schedule assumes 1000 steps")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (keep the machine's total ≤ 2)")
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--eval-windows", type=int, default=64, help="val windows for the periodic estimate")
    ap.add_argument("--checkpoint-minutes", type=float, default=3.0)
    ap.add_argument("--resume", action="store_true", help="continue from RUN/checkpoint.pt")
    ap.add_argument("--train-chars", type=int, help="use only the first N training characters (tests)")
    ap.add_argument("--export", type=Path, help="write the .npz here when training ends")
    ap.add_argument("--name", help="model name stored in the export (default: the run folder's name)")
    args = ap.parse_args(argv)

    torch.set_num_threads(args.threads)
    total_steps = args.steps or 1000
    vocab = read_vocab(args.corpus / "vocab.txt")
    train_text = (args.corpus / "train.txt").read_text(encoding="utf-8")
    if args.train_chars:
        train_text = train_text[: args.train_chars]
    train_ids = torch.from_numpy(encode(train_text, vocab).astype(np.int64))
    val_ids = encode((args.corpus / "val.txt").read_text(encoding="utf-8"), vocab)

    torch.manual_seed(args.seed)
    model = build(args.variant, len(vocab), args.layers, args.d_model, args.d_ff, args.ctx, args.heads)
    model.init_weights(args.seed)
    decay = [p for n, p in model.named_parameters() if not n.endswith(".w")]
    no_decay = [p for n, p in model.named_parameters() if n.endswith(".w")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))
    batch_gen = torch.Generator().manual_seed(10_000 + args.seed)

    args.run.mkdir(parents=True, exist_ok=True)
    ckpt_path, log_path = args.run / "checkpoint.pt", args.run / "loss.jsonl"
    step, train_seconds = 0, 0.0
    if args.resume and ckpt_path.exists():
        ckpt = torch.load(ckpt_path, weights_only=False)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["opt"])
        batch_gen.set_state(ckpt["batch_gen"])
        step, train_seconds = ckpt["step"], ckpt["train_seconds"]
        print(f"resumed at step {step} ({train_seconds / 60:.1f} min trained)", file=sys.stderr)
    elif log_path.exists():
        log_path.unlink()

    def save_checkpoint() -> None:
        tmp = ckpt_path.with_suffix(".tmp")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "batch_gen": batch_gen.get_state(),
                    "step": step, "train_seconds": train_seconds, "args": vars(args)}, tmp)
        os.replace(tmp, ckpt_path)

    n_params = count_params(model)
    tokens_per_step = args.batch * args.ctx
    print(f"{args.variant}: {n_params:,} parameters, {len(train_ids):,} training characters, "
          f"{total_steps} steps x {tokens_per_step} tokens", file=sys.stderr)
    log = log_path.open("a", encoding="utf-8")
    started = time.monotonic() - train_seconds
    last_ckpt = time.monotonic()
    max_start = len(train_ids) - args.ctx - 1
    loss_value = float("nan")
    stopped_early = False
    model.train()
    while step < total_steps:
        if args.minutes is not None and time.monotonic() - started >= args.minutes * 60:
            stopped_early = True
            break
        starts = torch.randint(0, max_start, (args.batch,), generator=batch_gen)
        idx = starts[:, None] + torch.arange(args.ctx + 1)[None, :]
        chunk = train_ids[idx]
        for group in opt.param_groups:
            group["lr"] = lr_at(step, total_steps, args.lr, args.warmup)
        logits = model(chunk[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), chunk[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        loss_value = loss.item()
        train_seconds = time.monotonic() - started
        record = {"step": step, "tokens": step * tokens_per_step, "loss": round(loss_value, 5),
                  "lr": group["lr"], "seconds": round(train_seconds, 2)}
        if step % args.eval_every == 0 or step == total_steps:
            record["val_loss_estimate"] = round(val_loss(model, val_ids, max_windows=args.eval_windows), 5)
        log.write(json.dumps(record) + "\n")
        log.flush()
        if step % 10 == 0 or step == total_steps:
            print(progress_bar(step, total_steps, loss_value, train_seconds), end="", file=sys.stderr, flush=True)
        if time.monotonic() - last_ckpt >= args.checkpoint_minutes * 60:
            save_checkpoint()
            last_ckpt = time.monotonic()
    print(file=sys.stderr)
    save_checkpoint()
    log.close()

    final_val = val_loss(model, val_ids)
    summary = {
        "name": args.name or args.run.name, "variant": args.variant, "seed": args.seed,
        "n_layers": args.layers, "d_model": args.d_model, "n_heads": args.heads,
        "d_head": args.d_model // args.heads, "d_ff": args.d_ff if args.variant == "baseline" else 0,
        "n_ctx": args.ctx, "vocab_size": len(vocab), "params": n_params,
        "steps": step, "planned_steps": total_steps, "stopped_early": stopped_early,
        "batch": args.batch, "tokens_seen": step * tokens_per_step, "lr": args.lr,
        "train_minutes": round(train_seconds / 60, 2), "threads": args.threads,
        "final_train_loss": loss_value, "val_loss": final_val,
        "val_chars": int(len(val_ids)), "torch": torch.__version__,
        "command": "python tools/train_model.py " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    if args.export:
        summary = export(model, vocab, val_ids, args.export, summary)
        summary["export"] = str(args.export)
    (args.run / "summary.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1), encoding="utf-8")
    print(json.dumps(summary, ensure_ascii=False), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
