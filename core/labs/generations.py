"""The block across generations (lab id "generations"): the seed's table of how FFN, residual,
normalization and gating changed from the 2017 original to 2026, a preset block for each
generation, a side-by-side comparison of two traces, and every "stuck at" number as a
computation a learner can rerun.

Pure NumPy; every number the lab shows comes from here, `core.block.forward` or `core.params`.
The table's text is ours, in Chinese and English; the figures and their sources are the seed's.

Slow computations take `progress(fraction) -> bool`: called with 0 … 1 as they go; returning
False cancels them, and they return None.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from core.block import Trace, forward
from core.config import BlockConfig, weight_shapes
from core.formats.scenario import Scenario, load_scenario
from core.functions import sigmoid, silu, softmax
from core.params import PROJECT_BASELINE, ModelShape, count_parameters, ffn_share, swiglu_width
from core.resources import default_scenario
from core.weights import adapt_weights, default_weight

if TYPE_CHECKING:                        # imported lazily: the lesson format may import the lab registry
    from core.formats.lesson import Text

LAB_ID = "generations"
Progress = Callable[[float], bool]

# The parts a lesson step may name (for the lab registry).
PARTS = ("table", "preset", "compare", "residual_growth", "placement", "swiglu_overflow",
         "attention_sink", "gain_decay", "parameters")
DEMONSTRATIONS = PARTS[3:]


def _text(zh: str, en: str) -> "Text":
    from core.formats.lesson import Text
    return Text(zh=zh, en=en)


# --- sources -------------------------------------------------------------------------------

SOURCES: dict[str, str] = {
    "vaswani2017": "Vaswani et al. 2017, Attention Is All You Need, Table 3 (rows C: d_ff 1024 / 2048 / 4096)",
    "he2015": "He et al. 2015, Deep Residual Learning for Image Recognition (the shortcut x + F(x))",
    "ba2016": "Ba, Kiros & Hinton 2016, Layer Normalization",
    "dauphin2016": "Dauphin et al. 2016, Language Modeling with Gated Convolutional Networks (GLU)",
    "radford2019": "Radford et al. 2019, Language Models are Unsupervised Multitask Learners (GPT-2): "
                   "residual-layer weights scaled by 1/√N at initialization; GPT-2 small config 768 → 3,072",
    "zhang2019": "Zhang & Sennrich 2019, Root Mean Square Layer Normalization",
    "shazeer2020": "Shazeer 2020, GLU Variants Improve Transformer, Table 1 "
                   "(held-out log-perplexity, T5-base: FFN_GELU 1.983, FFN_SwiGLU 1.944)",
    "deepseek2024": "DeepSeek-AI 2024, DeepSeek LLM: official config of the 67B model "
                    "(hidden_size 8,192, intermediate_size 22,016)",
    "qiu2025": "Qiu et al. 2025, Gated Attention for Large Language Models, Table 4 "
               "(first-token attention share 46.7 % → 4.8 %, Qwen's own 15B MoE experiments)",
    "anchor": "The course's anchor model (Qwen3.8), official config (anchor-model.json): hidden 5,120, "
              "intermediate 17,408, q_proj 12,288, 64 layers",
    "frontier": "Official configs of frontier models (frontier-models.json; seed R3 §3.6): "
                "gpt-oss swiglu_limit 7, DeepSeek V4 10",
    "project": "The course's own baseline model: 4 layers × 2 sub-layers, d 256, SwiGLU 688, vocab 2,048",
    "assumption": "√(1 + n) assumes every write independent, of variance 1",
    "computed": "Computed by Block Lab (core.labs.generations), reproducible in the demonstration",
}


# --- the table -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Column:
    id: str                  # also the preset id of that generation
    years: str
    title: "Text"


@dataclass(frozen=True)
class Row:
    id: str
    title: "Text"


@dataclass(frozen=True)
class Figure:
    """One number a cell prints, as the seed prints it, and where it comes from."""
    shown: str               # "11.36", "46.7 %", "22,016"
    value: float
    source: str              # a key of SOURCES
    computed_by: str | None = None   # the demonstration (or "parameters") that reproduces it


@dataclass(frozen=True)
class Cell:
    row: str
    column: str
    text: "Text"                     # what this generation did, in our words
    stuck_at: "Text | None"          # the number that forced the next generation, if any
    figures: tuple[Figure, ...]      # every number text and stuck_at print
    sources: tuple[str, ...]         # keys of SOURCES
    preset: str | None               # the preset the cell opens in the explorer
    demonstration: str | None        # the demonstration it opens (one of DEMONSTRATIONS)
    label: "Text"                    # `text` in a few words, for the map's card (SHORT)
    stuck_label: "Text | None"       # `stuck_at` in a few words (None when stuck_at is None)


COLUMN_IDS = ("original", "gpt2", "llama", "anchor", "divergence")
ROW_IDS = ("ffn", "residual", "norm", "gating")
GENERATIONS = COLUMN_IDS                 # every column has a preset of the same id


@lru_cache(maxsize=1)
def columns() -> tuple[Column, ...]:
    return (
        Column("original", "2017", _text("原版（Vaswani 等）", "The original (Vaswani et al.)")),
        Column("gpt2", "2019", _text("GPT-2（OpenAI）", "GPT-2 (OpenAI)")),
        Column("llama", "2020–2023", _text("Llama 式（Shazeer 2020 起）", "Llama-style (from Shazeer 2020)")),
        Column("anchor", "2025–2026", _text("锚点模型 Qwen3.8", "The anchor model, Qwen3.8")),
        Column("divergence", "2026", _text("各走各路（C15 展开）", "Divergence (C15)")),
    )


@lru_cache(maxsize=1)
def rows() -> tuple[Row, ...]:
    return (
        Row("ffn", _text("FFN", "FFN")),
        Row("residual", _text("残差", "Residual")),
        Row("norm", _text("归一化", "Normalization")),
        Row("gating", _text("门控", "Gating")),
    )


def _cell(row: str, column: str, text: tuple[str, str], stuck: tuple[str, str] | None,
          figures: tuple[Figure, ...], sources: tuple[str, ...], preset: str | None,
          demonstration: str | None) -> Cell:
    label, stuck_label = SHORT[(row, column)]
    return Cell(row, column, _text(*text), _text(*stuck) if stuck else None, figures, sources, preset,
                demonstration, _text(*label), _text(*stuck_label) if stuck_label else None)


# Each cell in a few words, for the map's cards (the whole text is shown for the cell pointed at):
# (row, column): ((zh, en) of the text, (zh, en) of the stuck-at or None). Every number here is
# one the cell's whole text prints.
SHORT: dict[tuple[str, str], tuple[tuple[str, str], tuple[str, str] | None]] = {
    ("ffn", "original"): (("ReLU；d_ff = 4d", "ReLU; d_ff = 4d"),
                          ("更好只能靠加宽", "better only by widening")),
    ("ffn", "gpt2"): (("GELU；仍是两个矩阵", "GELU; still two matrices"),
                      ("输给 SwiGLU", "loses to SwiGLU")),
    ("ffn", "llama"): (("SwiGLU，宽 8d/3", "SwiGLU, 8d/3 wide"),
                       ("8d/3 只为公平对照", "8d/3 only for a fair test")),
    ("ffn", "anchor"): (("SwiGLU，3.4 d；占参数 61.6%", "SwiGLU, 3.4 d; 61.6 % of parameters"),
                        ("没有上界", "no upper bound")),
    ("ffn", "divergence"): (("给 SwiGLU 封顶（7、10）；MoE", "capped SwiGLU (7, 10); MoE"), None),
    ("residual", "original"): (("每个子层 x + F(x)", "x + F(x) after each sub-layer"),
                               ("σ 增到 11.36", "σ grows to 11.36")),
    ("residual", "gpt2"): (("写入初值缩小为 1/√N", "writes start 1/√N smaller"),
                           ("一条流成了瓶颈", "one stream for all layers")),
    ("residual", "llama"): (("普通残差", "plain residual"), None),
    ("residual", "anchor"): (("普通残差，128 次写入", "plain; 128 writes"), None),
    ("residual", "divergence"): (("4 条流，或跨层注意力", "4 streams, or attention across layers"), None),
    ("norm", "original"): (("Post-LN：在相加之后", "Post-LN (after the sum)"),
                           ("离不开 warmup", "needs a warmup")),
    ("norm", "gpt2"): (("Pre-LN：移到子层入口", "Pre-LN: at each sub-layer's entry"),
                       ("仍减均值、仍带 β", "still centres, still has β")),
    ("norm", "llama"): (("Pre-RMSNorm，无 β", "Pre-RMSNorm, no β"),
                        ("权重衰减把 g 拉向 0", "decay pulls g down")),
    ("norm", "anchor"): (("零中心 RMSNorm + QK-Norm", "zero-centred RMSNorm + QK-Norm"), None),
    ("norm", "divergence"): (("输出端归一化；QKV RMSNorm", "norm at the output; QKV RMSNorm"), None),
    ("gating", "original"): (("没有门（GLU 2016 年用于卷积）", "no gate (GLU, 2016: convolutions)"), None),
    ("gating", "gpt2"): (("没有门", "no gate"), None),
    ("gating", "llama"): (("门在 FFN 里（SwiGLU）", "a gate in the FFN (SwiGLU)"),
                          ("首 token 占 46.7%", "first token: 46.7 %")),
    ("gating", "anchor"): (("注意力也加门；首 token 降到 4.8%", "attention gated; first token 4.8 %"), None),
    ("gating", "divergence"): (("Gated MLA；sigmoid 输出门", "Gated MLA; sigmoid output gates"), None),
}


@lru_cache(maxsize=1)
def table() -> tuple[Cell, ...]:
    """Every cell, row by row (FFN, residual, normalization, gating), left to right."""
    F = Figure
    return (
        # FFN ------------------------------------------------------------------------------
        _cell("ffn", "original",
              ("两个矩阵夹一个 ReLU，中间层是 d 的 4 倍：d = 512 时 d_ff = 2048。",
               "Two matrices with a ReLU between them, the hidden layer 4 × d wide: d_ff = 2048 at d = 512."),
              ("想更好只能花参数加宽：d_ff 取 1024 / 2048 / 4096，开发集困惑度 5.12 / 4.92 / 4.75，"
               "模型 53M / 65M / 90M 个参数。",
               "Better only by buying width with parameters: d_ff 1024 / 2048 / 4096 gives dev perplexity "
               "5.12 / 4.92 / 4.75 with 53M / 65M / 90M parameters."),
              (F("2048", 2048, "vaswani2017"), F("5.12", 5.12, "vaswani2017"), F("4.92", 4.92, "vaswani2017"),
               F("4.75", 4.75, "vaswani2017"), F("53M", 53e6, "vaswani2017"), F("65M", 65e6, "vaswani2017"),
               F("90M", 90e6, "vaswani2017")),
              ("vaswani2017",), "original", None),
        _cell("ffn", "gpt2",
              ("还是两个矩阵，激活换成 GELU（GPT-2 用 tanh 近似）；GPT-2 small 为 768 → 3,072。",
               "Still two matrices, the activation now GELU (GPT-2 uses the tanh approximation); "
               "768 → 3,072 in GPT-2 small."),
              ("参数一样多时仍输给门控 FFN：T5-base 上留出集对数困惑度 GELU 1.983，SwiGLU 1.944（越低越好）。",
               "With the same parameters it still loses to a gated FFN: held-out log-perplexity on T5-base, "
               "GELU 1.983 against SwiGLU 1.944 (lower is better)."),
              (F("3,072", 3072, "radford2019"), F("1.983", 1.983, "shazeer2020"), F("1.944", 1.944, "shazeer2020")),
              ("radford2019", "shazeer2020"), "gpt2", None),
        _cell("ffn", "llama",
              ("SwiGLU 三个矩阵：SiLU(x·W_gate) ⊙ (x·W_up) 再乘 W_down；中间宽取 8d/3，参数和 4d 的两矩阵 FFN 一样多。"
               "DeepSeek-LLM-67B：8,192 → 22,016（8d/3 向上取到 256 的倍数）。",
               "SwiGLU, three matrices: SiLU(x·W_gate) ⊙ (x·W_up), then W_down; hidden width 8d/3, so it has the "
               "parameters of a 4d two-matrix FFN. DeepSeek-LLM-67B: 8,192 → 22,016 (8d/3 rounded up to a "
               "multiple of 256)."),
              ("8d/3 只是为公平对照而做的换算；真实模型按预算另取宽度。",
               "8d/3 is only the conversion for a fair comparison; real models choose the width by budget."),
              (F("22,016", 22016, "deepseek2024", "parameters"),),
              ("shazeer2020", "deepseek2024"), "llama", "parameters"),
        _cell("ffn", "anchor",
              ("SwiGLU，5,120 → 17,408，即 3.4 d，不是 8d/3；FFN 占全模型参数的 61.6%。",
               "SwiGLU, 5,120 → 17,408: 3.4 d, not 8d/3; the FFN holds 61.6 % of all parameters."),
              ("输出没有上界：SiLU(10) × 10 = 99.995，输入再大，低精度就会溢出。",
               "Its output has no upper bound: SiLU(10) × 10 = 99.995, and with larger inputs low precision "
               "overflows."),
              (F("17,408", 17408, "anchor", "parameters"), F("3.4", 3.4, "anchor", "parameters"),
               F("61.6 %", 0.616, "anchor"), F("99.995", 99.995, "computed", "swiglu_overflow")),
              ("anchor",), "anchor", "swiglu_overflow"),
        _cell("ffn", "divergence",
              ("给 SwiGLU 封顶：gpt-oss 截在 7，DeepSeek V4 截在 10，Kimi K3 用软封顶的 SiTU-GLU；"
               "再往后把 FFN 拆成许多小 FFN（MoE，C11）。",
               "Cap SwiGLU: gpt-oss clips at 7, DeepSeek V4 at 10, Kimi K3 caps it softly (SiTU-GLU); "
               "beyond that, split the FFN into many small ones (MoE, C11)."),
              None,
              (F("7", 7, "frontier", "swiglu_overflow"), F("10", 10, "frontier", "swiglu_overflow")),
              ("frontier",), "divergence", "swiglu_overflow"),
        # residual -------------------------------------------------------------------------
        _cell("residual", "original",
              ("每个子层都写回 x + F(x)：ResNet(2015)的捷径搬进了 Transformer。",
               "Every sub-layer writes back x + F(x): ResNet's 2015 shortcut, carried into the Transformer."),
              ("残差流越加越大：128 次方差为 1 的独立写入之后，标准差是 √129 = 11.36。",
               "The stream keeps growing: after 128 independent writes of variance 1 its standard deviation "
               "is √129 = 11.36."),
              (F("128", 128, "assumption"), F("11.36", math.sqrt(129), "assumption", "residual_growth")),
              ("he2015", "assumption"), "original", "residual_growth"),
        _cell("residual", "gpt2",
              ("写回残差流的输出投影在初始化时缩小为 1/√N（N 为写入次数）；本课程的小模型：0.02 ÷ √8 = 0.00707。",
               "Output projections that write into the stream start 1/√N smaller (N = the number of writes); "
               "in the course's small model 0.02 ÷ √8 = 0.00707."),
              ("一条 d 维的流要承载所有层的读和写，层数多了就成了瓶颈（各家自述）。",
               "One d-wide stream carries every layer's reads and writes; with many layers it becomes the "
               "bottleneck (as the labs themselves report)."),
              (F("0.00707", 0.02 / math.sqrt(8), "project", "residual_growth"),),
              ("radford2019", "project"), "gpt2", "residual_growth"),
        _cell("residual", "llama",
              ("普通残差，和 GPT-2 一样。", "A plain residual, as in GPT-2."),
              None, (), (), "llama", None),
        _cell("residual", "anchor",
              ("仍是普通残差：64 层 × 每层 2 个子层 = 128 次写入，正是 √129 的那个数。",
               "Still a plain residual: 64 layers × 2 sub-layers = 128 writes, exactly the √129 case."),
              None,
              (F("128", 128, "anchor", "residual_growth"),),
              ("anchor",), "anchor", "residual_growth"),
        _cell("residual", "divergence",
              ("把一条流加宽成 4 条（mHC、Gated Residual），或让每层对前面所有层的输出做注意力（AttnRes）。",
               "Widen the one stream into 4 (mHC, Gated Residual), or let each layer attend over the outputs "
               "of all earlier layers (AttnRes)."),
              None, (), (), None, None),
        # normalization --------------------------------------------------------------------
        _cell("norm", "original",
              ("LayerNorm(2016)：用每个 token 自己的统计量归一，取代按批统计的 BatchNorm；放在残差相加之后（Post-LN）。",
               "LayerNorm (2016): each token normalized by its own statistics, replacing BatchNorm's per-batch "
               "ones; placed after the residual sum (Post-LN)."),
              ("训练离不开学习率 warmup（原因在 C8 揭晓）。",
               "Training cannot do without a learning-rate warmup (why: C8)."),
              (), ("ba2016",), "original", "placement"),
        _cell("norm", "gpt2",
              ("LayerNorm 移到每个子层的入口（Pre-LN），最后再加一个 LayerNorm。",
               "LayerNorm moves to each sub-layer's entry (Pre-LN), with one more LayerNorm at the end."),
              ("还要减均值、还带偏置 β；Zhang & Sennrich 认为平移不变性可以不要。",
               "It still subtracts the mean and carries a bias β; Zhang & Sennrich argue the re-centring "
               "can go."),
              (), ("radford2019", "zhang2019"), "gpt2", "placement"),
        _cell("norm", "llama",
              ("Pre-RMSNorm：只除以均方根，没有 β。",
               "Pre-RMSNorm: divide by the root mean square only; no β."),
              ("增益 g 从 1 开始，weight decay 却一直把它往 0 拉。",
               "The gain g starts at 1, yet weight decay keeps pulling it towards 0."),
              (), ("zhang2019",), "llama", "gain_decay"),
        _cell("norm", "anchor",
              ("零中心 RMSNorm：乘 1 + w，w 从 0 开始，ε = 1e-6；q 和 k 再各过一次 RMSNorm(QK-Norm)。",
               "Zero-centred RMSNorm: multiply by 1 + w, w starting at 0, ε = 1e-6; q and k each pass through "
               "an RMSNorm of their own (QK-Norm)."),
              None,
              (F("1e-6", 1e-6, "anchor"),),
              ("anchor",), "anchor", "gain_decay"),
        _cell("norm", "divergence",
              ("OLMo 2 把归一化挪到子层的输出端；DeepSeek V4 用 QKV RMSNorm 取代 QK-Clip(C8)。",
               "OLMo 2 moves the norm to each sub-layer's output; DeepSeek V4 replaces QK-Clip with a QKV "
               "RMSNorm (C8)."),
              None, (), (), None, None),
        # gating ---------------------------------------------------------------------------
        _cell("gating", "original",
              ("没有门。GLU 在 2016 年已经提出，但用在卷积语言模型里。",
               "No gate. GLU had been proposed in 2016, but for convolutional language models."),
              None, (), ("dauphin2016",), "original", None),
        _cell("gating", "gpt2",
              ("没有门。", "No gate."),
              None, (), (), "gpt2", None),
        _cell("gating", "llama",
              ("门在 FFN 里：SwiGLU = SiLU(x·W_gate) ⊙ (x·W_up)。",
               "The gate sits in the FFN: SwiGLU = SiLU(x·W_gate) ⊙ (x·W_up)."),
              ("注意力的 softmax 必须分完 100%：Qwen 的 15B MoE 实验里，第一个 token 平均拿走 46.7% 的注意力。",
               "Attention's softmax has to hand out 100 %: in Qwen's 15B MoE experiments the first token takes "
               "46.7 % of the attention on average."),
              (F("46.7 %", 0.467, "qiu2025", "attention_sink"),),
              ("shazeer2020", "qiu2025"), "llama", "attention_sink"),
        _cell("gating", "anchor",
              ("注意力输出也加门：q_proj 5,120 → 12,288 = 2 × 6,144，一半是 q，一半过 sigmoid 当门；"
               "第一个 token 的占比降到 4.8%。",
               "A gate on attention's output too: q_proj 5,120 → 12,288 = 2 × 6,144, half of it q, half through "
               "a sigmoid as the gate; the first token's share falls to 4.8 %."),
              None,
              (F("12,288", 12288, "anchor", "parameters"), F("6,144", 6144, "anchor"),
               F("4.8 %", 0.048, "qiu2025", "attention_sink")),
              ("anchor", "qiu2025"), "anchor", "attention_sink"),
        _cell("gating", "divergence",
              ("Kimi K3 的 Gated MLA；Qwen3.8-Flash-Next 把线性注意力的输出门也换成 sigmoid(C11)。",
               "Kimi K3's Gated MLA; Qwen3.8-Flash-Next switches its linear attention's output gate to a "
               "sigmoid too (C11)."),
              None, (), (), None, None),
    )


def cell(row: str, column: str) -> Cell:
    """The cell at (row id, column id); KeyError if there is none."""
    for found in table():
        if found.row == row and found.column == column:
            return found
    raise KeyError(f"no cell at row {row!r}, column {column!r}")


# --- presets -------------------------------------------------------------------------------

LESSON_D = 4
STANDARD_D_FF = 4 * LESSON_D                      # 16: the 2017 FFN is 4 × d wide
GATED_D_FF = swiglu_width(LESSON_D, multiple_of=1)  # 10: int(8·4/3) = int(10.67), Llama's rounding
ANCHOR_EPS = 1e-6
DIVERGENCE_CLAMP = 7.0                            # gpt-oss's limit (DeepSeek V4: 10)
PRESET_SEED = 0                                   # weights whose shape the default block lacks


@dataclass(frozen=True)
class Generation:
    id: str
    title: "Text"            # the preset's title in the explorer
    changes: "Text"          # what changed from the generation before


def _lesson_config(generation: str) -> BlockConfig:
    common = dict(d_model=LESSON_D, n_heads=2, d_head=2, attention=True, residual=True)
    if generation == "original":            # an encoder block of 2017: every token sees every token
        return BlockConfig(**common, d_ff=STANDARD_D_FF, mask="full", norm="layernorm", norm_placement="post",
                           eps=1e-5, activation="relu")
    if generation == "gpt2":
        return BlockConfig(**common, d_ff=STANDARD_D_FF, mask="causal", norm="layernorm", norm_placement="pre",
                           eps=1e-5, activation="gelu_tanh")
    if generation == "llama":
        return BlockConfig(**common, d_ff=GATED_D_FF, mask="causal", norm="rmsnorm", norm_placement="pre",
                           eps=1e-5, activation="silu", gated=True)
    if generation == "anchor":
        return BlockConfig(**common, d_ff=GATED_D_FF, mask="causal", norm="rmsnorm", norm_placement="pre",
                           eps=ANCHOR_EPS, activation="silu", gated=True, zero_centered=True, qk_norm=True,
                           attn_gate=True)
    if generation == "divergence":
        return _lesson_config("anchor").with_changes(ffn_clamp=DIVERGENCE_CLAMP)
    raise KeyError(f"generation: expected one of {', '.join(GENERATIONS)}, got {generation!r}")


def preset_config(generation: str) -> BlockConfig:
    """The lesson-size block of a generation (d 4, 2 heads of 2, the default block's 5 tokens)."""
    return _lesson_config(generation)


@lru_cache(maxsize=1)
def generations() -> tuple[Generation, ...]:
    return (
        Generation("original", _text("2017 原版：Post-LN、ReLU、d_ff = 4d", "2017 original: Post-LN, ReLU, d_ff = 4d"),
                   _text("本课的默认块，FFN 加宽到 4d = 16；每个 token 看得到所有 token（编码器）。",
                         "The lesson's default block with the FFN widened to 4d = 16; every token sees every "
                         "token (an encoder).")),
        Generation("gpt2", _text("2019 GPT-2：Pre-LN、GELU(tanh)", "2019 GPT-2: Pre-LN, GELU (tanh)"),
                   _text("LayerNorm 移到子层入口，ReLU 换成 GELU 的 tanh 近似；因果掩码（解码器）。",
                         "LayerNorm moves to each sub-layer's entry, ReLU becomes GELU's tanh approximation; "
                         "a causal mask (a decoder).")),
        Generation("llama", _text("Llama 式：Pre-RMSNorm、SwiGLU、8d/3", "Llama-style: Pre-RMSNorm, SwiGLU, 8d/3"),
                   _text("RMSNorm 不减均值、没有 β；FFN 变成 SwiGLU，中间宽 int(8·4/3) = 10。",
                         "RMSNorm: no mean, no β; the FFN becomes SwiGLU, hidden width int(8·4/3) = 10.")),
        Generation("anchor", _text("锚点模型：零中心 RMSNorm、QK-Norm、输出门",
                                   "Anchor model: zero-centred RMSNorm, QK-Norm, output gate"),
                   _text("增益变成 1 + w（w 从 0 开始），ε = 1e-6；q、k 各过一次 RMSNorm；每个头的 z 乘以 sigmoid 门。",
                         "Gains become 1 + w (w starts at 0), ε = 1e-6; q and k each pass an RMSNorm; each "
                         "head's z is multiplied by a sigmoid gate.")),
        Generation("divergence", _text("2026 分歧：截断的 SwiGLU（上限 7）", "2026 divergence: clamped SwiGLU (limit 7)"),
                   _text("锚点模型的块，SwiGLU 的门值 ≤ 7、升维值在 ±7 之内（gpt-oss 的做法）。",
                         "The anchor block with SwiGLU's gate ≤ 7 and its up values within ±7 (gpt-oss's way).")),
    )


@lru_cache(maxsize=1)
def _default_block() -> Scenario:
    return load_scenario(default_scenario())


@lru_cache(maxsize=len(GENERATIONS))
def _built(generation: str) -> Scenario:
    base = _default_block()
    config = _lesson_config(generation)
    # Weights of the default block where the shape agrees (all of attention, b_out, the norms;
    # gains converted to w = gain − 1 for zero-centred norms), seeded (seed 0) otherwise.
    weights, _ = adapt_weights(base.weights, config, seed=PRESET_SEED, previous=base.config)
    title = next(g.title for g in generations() if g.id == generation)
    return Scenario(config, base.tokens, np.array(base.inputs), weights, None, {"zh": title.zh, "en": title.en})


def preset(generation: str) -> Scenario:
    """A fresh Scenario of one generation at lesson size: the default block's tokens
    (小明 把 苹果 给了 小王) and inputs, comparable weights. Built once, copied on each call."""
    built = _built(generation)
    return Scenario(built.config, built.tokens, built.inputs.copy(),
                    {name: array.copy() for name, array in built.weights.items()}, None, dict(built.title))


def presets() -> dict[str, Scenario]:
    return {generation: preset(generation) for generation in GENERATIONS}


# --- side by side --------------------------------------------------------------------------

@dataclass(frozen=True)
class HookDifference:
    hook: str
    shape_a: tuple[int, ...]
    shape_b: tuple[int, ...]
    difference: np.ndarray | None    # a − b where the shapes agree (0 where both are −∞), else None
    largest: float | None            # max |a − b| over finite differences; None when shapes differ

    @property
    def same_shape(self) -> bool:
        return self.shape_a == self.shape_b


@dataclass(frozen=True)
class TraceComparison:
    common: tuple[HookDifference, ...]   # hooks in both traces, in a's order
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]

    def get(self, hook: str) -> HookDifference | None:
        return next((found for found in self.common if found.hook == hook), None)


def compare_traces(a: Trace | dict, b: Trace | dict) -> TraceComparison:
    """Two traces hook by hook: the hooks both have (with a − b where their shapes agree), and
    the hooks only one has. Masked scores (−∞ in both) differ by 0; −∞ against a number is ±∞."""
    common = []
    for hook in a:
        if hook not in b:
            continue
        left, right = np.asarray(a[hook]), np.asarray(b[hook])
        difference = largest = None
        if left.shape == right.shape:
            with np.errstate(invalid="ignore"):
                difference = np.where(left == right, 0.0, left - right)
            finite = np.abs(difference[np.isfinite(difference)])
            largest = float(finite.max()) if finite.size else 0.0
            difference.setflags(write=False)
        common.append(HookDifference(hook, left.shape, right.shape, difference, largest))
    return TraceComparison(tuple(common), tuple(h for h in a if h not in b), tuple(h for h in b if h not in a))


def compare_generations(first: str, second: str) -> TraceComparison:
    return compare_traces(preset(first).run(), preset(second).run())


# --- (a) residual growth -------------------------------------------------------------------

GPT2_INIT_STD = 0.02


@dataclass(frozen=True)
class ResidualGrowth:
    writes: np.ndarray           # 0, 1, …, n
    measured: np.ndarray         # std of the stream after that many writes
    expected: np.ndarray         # √(1 + n·scale²)
    scale: float                 # each write's std (1: the seed's unit writes; 1/√N: GPT-2's remedy)
    sampling_error: np.ndarray   # ≈ expected / √(2 · numbers measured): one standard error of `measured`
    width: int
    samples: int
    seed: int


def gpt2_init_std(n_layers: int, base: float = GPT2_INIT_STD) -> float:
    """GPT-2's initialisation of the output projections: base/√N, N = 2 × layers (two writes a layer).
    4 layers: 0.02/√8 = 0.00707."""
    return base / math.sqrt(2 * n_layers)


def gpt2_write_scale(n_layers: int) -> float:
    """How much smaller each write is under GPT-2's init than under the plain 0.02: 1/√(2·layers)."""
    return gpt2_init_std(n_layers) / GPT2_INIT_STD


def residual_growth(n_writes: int = 128, scale: float = 1.0, width: int = 256, samples: int = 256,
                    seed: int = 0, progress: Progress | None = None) -> ResidualGrowth | None:
    """A residual stream of `samples` vectors, `width` wide, starting at variance 1 (the embedding),
    receiving n_writes independent writes of std `scale`; its measured std after each write.
    With scale 1, after 128 writes the std is ≈ √129 = 11.36. None if progress said stop."""
    rng = np.random.default_rng(seed)
    stream = rng.standard_normal((samples, width))
    measured = np.empty(n_writes + 1)
    measured[0] = stream.std()
    for n in range(1, n_writes + 1):
        stream += scale * rng.standard_normal((samples, width))
        measured[n] = stream.std()
        if progress is not None and n % 16 == 0 and progress(n / n_writes) is False:
            return None
    writes = np.arange(n_writes + 1)
    expected = np.sqrt(1.0 + writes * scale * scale)
    if progress is not None and progress(1.0) is False:
        return None
    return ResidualGrowth(writes, measured, expected, float(scale), expected / math.sqrt(2 * samples * width),
                          width, samples, seed)


# --- (b) post-LN against pre-LN across depth -----------------------------------------------

@dataclass(frozen=True)
class DepthProfile:
    placement: str               # "post" | "pre"
    layers: np.ndarray           # 1 … L
    stream_rms: np.ndarray       # L + 1 values: the block input, then the stream after each layer
    attn_out_rms: np.ndarray     # L: the size of each layer's attention output (what it writes)
    mlp_out_rms: np.ndarray      # L: the size of each layer's FFN output
    relative_update: np.ndarray  # L: rms(attn_out + mlp_out) / rms(stream entering the layer)


def _rms(array: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(array))))


def stack_config(placement: str, d_model: int = 16, n_heads: int = 2, d_ff: int = 64,
                 norm: str = "layernorm") -> BlockConfig:
    return BlockConfig(d_model=d_model, n_heads=n_heads, d_head=d_model // n_heads, d_ff=d_ff, mask="causal",
                       norm=norm, norm_placement=placement, activation="gelu_tanh")


def stack_weights(config: BlockConfig, n_layers: int, seed: int = 0) -> list[dict[str, np.ndarray]]:
    """One set of weights per layer, seeded (N(0, 1/fan_in), gains 1, biases 0), the same for either
    placement (the weights do not depend on where the norms sit)."""
    return [{name: default_weight(name, shape, seed + 1000 * layer, config.zero_centered)
             for name, shape in weight_shapes(config).items()} for layer in range(n_layers)]


def depth_profile(placement: str, n_layers: int = 24, d_model: int = 16, n_heads: int = 2, d_ff: int = 64,
                  tokens: int = 8, norm: str = "layernorm", seed: int = 0,
                  progress: Progress | None = None) -> DepthProfile | None:
    """A stack of n_layers blocks built with the engine (`core.block.forward` per layer), each layer's
    output the next one's input, with the norms at `placement`; the sizes across depth."""
    config = stack_config(placement, d_model, n_heads, d_ff, norm)
    layer_weights = stack_weights(config, n_layers, seed)
    x = np.random.default_rng(seed).standard_normal((tokens, d_model))
    stream, attn, mlp, update = [_rms(x)], [], [], []
    for layer, weights in enumerate(layer_weights):
        trace = forward(config, weights, x)
        attn.append(_rms(trace["hook_attn_out"]))
        mlp.append(_rms(trace["hook_mlp_out"]))
        update.append(_rms(trace["hook_attn_out"] + trace["hook_mlp_out"]) / max(_rms(x), 1e-300))
        x = np.array(trace.output)
        stream.append(_rms(x))
        if progress is not None and progress((layer + 1) / n_layers) is False:
            return None
    return DepthProfile(placement, np.arange(1, n_layers + 1), np.array(stream), np.array(attn), np.array(mlp),
                        np.array(update))


def compare_placements(n_layers: int = 24, progress: Progress | None = None,
                       **options: object) -> tuple[DepthProfile, DepthProfile] | None:
    """(post, pre): the same stack, the same weights and input, with each placement."""
    def part(offset: float) -> Progress | None:
        if progress is None:
            return None
        return lambda fraction: progress(offset + fraction / 2)

    post = depth_profile("post", n_layers, progress=part(0.0), **options)
    if post is None:
        return None
    pre = depth_profile("pre", n_layers, progress=part(0.5), **options)
    return None if pre is None else (post, pre)


# --- (c) SwiGLU without an upper bound -----------------------------------------------------

FLOAT16_MAX = float(np.finfo(np.float16).max)            # 65,504
BFLOAT16_MAX = (2.0 - 2.0 ** -7) * 2.0 ** 127             # ≈ 3.3895e38
BFLOAT16_BITS = 8                                         # significant bits (7 stored + 1 implicit)


def swiglu_unit(gate: np.ndarray | float, up: np.ndarray | float, limit: float | None = None) -> np.ndarray:
    """SiLU(gate) · up for one hidden unit, optionally clamped the gpt-oss way (gate ≤ limit, |up| ≤ limit)."""
    gate = np.asarray(gate, dtype=np.float64)
    up = np.asarray(up, dtype=np.float64)
    if limit is not None:
        gate, up = np.minimum(gate, limit), np.clip(up, -limit, limit)
    return silu(gate) * up


def to_float16(values: np.ndarray) -> np.ndarray:
    """The values as float16 stores them (round to nearest even; beyond 65,504 → ±inf), as float64."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(np.float16).astype(np.float64)


def to_bfloat16(values: np.ndarray) -> np.ndarray:
    """The values as bfloat16 stores them, as float64: 8 significant bits, rounded to nearest even
    in one step from float64; beyond ≈ 3.39e38 → ±inf. (Subnormals below 1.2e-38 are not modelled.)"""
    values = np.asarray(values, dtype=np.float64)
    mantissa, exponent = np.frexp(values)                   # values = mantissa · 2^exponent, |mantissa| in [0.5, 1)
    rounded = np.ldexp(np.round(mantissa * 2.0 ** BFLOAT16_BITS), exponent - BFLOAT16_BITS)
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(rounded) > BFLOAT16_MAX, np.copysign(np.inf, values), rounded)


def bfloat16_spacing(value: float) -> float:
    """The gap between neighbouring bfloat16 numbers around `value`: 0.5 between 64 and 128."""
    value = abs(float(value))
    if value == 0:
        return 0.0
    return 2.0 ** (math.floor(math.log2(value)) - (BFLOAT16_BITS - 1))


def _overflow_input(rounding: Callable[[np.ndarray], np.ndarray]) -> float:
    """The smallest x with SiLU(x)·x stored as ∞ in a format (bisection; SiLU(x)·x rises for x > 0)."""
    low, high = 1.0, 1.0
    while np.isfinite(rounding(swiglu_unit(high, high))):
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2
        if np.isfinite(rounding(swiglu_unit(middle, middle))):
            low = middle
        else:
            high = middle
    return high


@dataclass(frozen=True)
class SwigluOverflow:
    inputs: np.ndarray           # x, used as both the gate and the up value
    exact: np.ndarray            # SiLU(x)·x in float64
    float16: np.ndarray          # the same stored in float16 (inf once past 65,504)
    bfloat16: np.ndarray         # the same stored in bfloat16 (inf only past ≈ 3.39e38; coarse)
    bfloat16_relative_error: np.ndarray
    limit: float                 # the clamp limit
    clamped: np.ndarray          # the clamped unit: never above SiLU(limit)·limit
    clamped_ceiling: float
    float16_overflow_at: float   # x from which float16 holds ∞ (≈ 256)
    bfloat16_overflow_at: float  # x from which bfloat16 holds ∞ (≈ 1.84e19)
    silu10_times_10: float       # SiLU(10) × 10 = 99.995…


def swiglu_overflow(inputs: np.ndarray | None = None, limit: float = DIVERGENCE_CLAMP) -> SwigluOverflow:
    """SwiGLU's unbounded product as the inputs grow: where float16 and bfloat16 overflow, how coarse
    bfloat16 is meanwhile, and what a clamp at `limit` does."""
    xs = np.logspace(0, 20, 201) if inputs is None else np.asarray(inputs, dtype=np.float64)
    exact = swiglu_unit(xs, xs)
    bf16 = to_bfloat16(exact)
    with np.errstate(invalid="ignore", divide="ignore"):
        relative = np.where(exact != 0, np.abs(bf16 - exact) / np.abs(exact), 0.0)
    return SwigluOverflow(xs, exact, to_float16(exact), bf16, relative, float(limit),
                          swiglu_unit(xs, xs, limit), float(swiglu_unit(limit, limit)),
                          _overflow_input(to_float16), _overflow_input(to_bfloat16),
                          float(swiglu_unit(10.0, 10.0)))


# --- (d) the attention sink ----------------------------------------------------------------

REPORTED_FIRST_TOKEN_SHARE = 0.467      # Qiu et al. 2025 Table 4, without the output gate
REPORTED_GATED_FIRST_TOKEN_SHARE = 0.048


@dataclass(frozen=True)
class AttentionSink:
    tokens: tuple[str, ...]
    values: np.ndarray               # T×dh: the value rows the last token's query reads (head 0)
    uniform_pattern: np.ndarray      # T: nothing relevant, every score equal → 1/T each
    uniform_output: np.ndarray       # dh: what the head writes then: the mean of the values, not 0
    sink_logits: np.ndarray          # how far the first token's score is raised above the others
    first_share: np.ndarray          # the softmax weight on the first token at each
    sink_output_norm: np.ndarray     # |z| when the first token's value is 0 (a sink): shrinks as its share grows
    gate_logits: np.ndarray          # the output gate's pre-sigmoid value
    gate: np.ndarray                 # σ(gate logit)
    gated_output_norm: np.ndarray    # |σ(g)·z| with the uniform pattern: nearly 0 for very negative g
    reported_share: float = REPORTED_FIRST_TOKEN_SHARE
    reported_gated_share: float = REPORTED_GATED_FIRST_TOKEN_SHARE

    @property
    def uniform_output_norm(self) -> float:
        return float(np.linalg.norm(self.uniform_output))


def sink_logit_for_share(share: float, tokens: int) -> float:
    """How much higher the first token's score must be for the softmax to give it `share` of the
    attention when the other tokens - 1 tie: e^s / (e^s + T − 1) = share."""
    if not 0 < share < 1 or tokens < 2:
        raise ValueError("share: expected a fraction strictly between 0 and 1, with at least 2 tokens")
    return math.log(share * (tokens - 1) / (1 - share))


def attention_sink(sink_logits: np.ndarray | None = None,
                   gate_logits: np.ndarray | None = None) -> AttentionSink:
    """The last token of the default sentence (小王) looks back at all five tokens with a query no key
    answers: every score is equal. The softmax must still hand out 100 %: 20 % each, and the head
    writes the mean of the values. Trained models learn a way out: a first token with a large score
    and an empty value (the sink) soaks up the weight. A sigmoid output gate needs no sink: σ(g) → 0
    silences the head whatever the pattern. Values: head 0 of the default block."""
    block = _default_block()
    values = np.array(block.run()["attn.hook_v"][0])                # (T, dh)
    T = values.shape[0]
    sink_logits = np.linspace(0.0, 8.0, 33) if sink_logits is None else np.asarray(sink_logits, dtype=np.float64)
    gate_logits = np.linspace(-8.0, 8.0, 33) if gate_logits is None else np.asarray(gate_logits, dtype=np.float64)

    uniform = softmax(np.zeros(T))
    uniform_output = uniform @ values
    sink_values = values.copy()
    sink_values[0] = 0.0                                            # the sink's value carries nothing
    scores = np.zeros((len(sink_logits), T))
    scores[:, 0] = sink_logits
    patterns = softmax(scores)                                      # one row per sink logit
    sink_norms = np.linalg.norm(patterns @ sink_values, axis=1)
    gates = sigmoid(gate_logits)
    gated_norms = gates * np.linalg.norm(uniform_output)
    return AttentionSink(block.tokens, values, uniform, uniform_output, sink_logits, patterns[:, 0], sink_norms,
                         gate_logits, gates, gated_norms)


def silenced_anchor(gate_bias: float = -8.0) -> Scenario:
    """The anchor preset with every b_G set to gate_bias: the explorer shows attn.hook_gate_sigmoid
    ≈ σ(gate_bias) and attn.hook_z_gated ≈ 0 (σ(−8) = 0.000335), while the pattern is untouched."""
    scenario = preset("anchor")
    scenario.weights["b_G"] = np.full_like(scenario.weights["b_G"], float(gate_bias))
    return scenario


# --- (e) what weight decay does to a gain --------------------------------------------------

@dataclass(frozen=True)
class GainDecay:
    steps: np.ndarray
    plain_gain: np.ndarray           # g, starting at 1: (1 − lr·λ)^t
    zero_centered_gain: np.ndarray   # 1 + w, w starting at 0: stays 1
    lr: float
    weight_decay: float


def gain_decay(steps: int = 10_000, lr: float = 1e-3, weight_decay: float = 0.1, points: int = 101) -> GainDecay:
    """Weight decay alone (AdamW's decoupled step w ← w·(1 − lr·λ), no gradient) on a norm's gain:
    a plain gain g = 1 decays towards 0 ((1 − 10⁻⁴)^10,000 = 0.368 with the defaults); a zero-centred
    gain 1 + w decays towards 1, since w = 0 is where it starts. Gradients pull back in training; this
    shows only which way the decay pulls."""
    t = np.linspace(0, steps, points)
    factor = (1.0 - lr * weight_decay) ** t
    return GainDecay(t, factor, 1.0 + 0.0 * factor, lr, weight_decay)


# --- (f) parameters ------------------------------------------------------------------------

@dataclass(frozen=True)
class WidthExample:
    model: str
    d_model: int
    d_ff: int
    rule: str                     # how the width comes about
    source: str


WIDTH_EXAMPLES = (
    WidthExample("DeepSeek-LLM-67B", 8192, 22016, "8d/3 rounded up to a multiple of 256", "deepseek2024"),
    WidthExample("anchor (Qwen3.8)", 5120, 17408, "3.4 d, chosen by budget (8d/3 would be 13,824)", "anchor"),
    WidthExample("project baseline", 256, 688, "int(8d/3) = 682 rounded up to a multiple of 16", "project"),
)


@dataclass(frozen=True)
class ParameterBreakdown:
    shape: ModelShape
    parts: dict[str, int] = field(default_factory=dict)   # embeddings, attention, ffn, norms, unembedding, total
    ffn_share: float = 0.0


def parameter_breakdown(shape: ModelShape = PROJECT_BASELINE) -> ParameterBreakdown:
    """Counts per part and the FFN's share, for the calculator (`ModelShape` validates its fields and
    raises ValueError naming the field)."""
    return ParameterBreakdown(shape, count_parameters(shape), ffn_share(shape))


@dataclass(frozen=True)
class ParameterReport:
    """What the calculator shows for one model: the breakdown, how wide its FFN is in units of
    d_model, the 8d/3 width Llama's rule would give it, and how it compares with a reference."""
    breakdown: ParameterBreakdown
    width_ratio: float | None     # d_ff / d_model (None without an FFN): 17,408 / 5,120 = 3.4
    gated_width: int              # 8d/3 rounded up to a multiple of 256: 8,192 → 22,016
    reference_total: int
    fewer_than_reference: float   # (reference − total) / reference: 0.0042 for 12 attention-only layers


def parameter_report(shape: ModelShape, reference: ModelShape = PROJECT_BASELINE) -> ParameterReport:
    """The calculator's numbers for `shape`, compared with `reference` (the course's own model)."""
    breakdown = parameter_breakdown(shape)
    reference_total = count_parameters(reference)["total"]
    ratio = None if shape.ffn == "none" else shape.d_ff / shape.d_model
    return ParameterReport(breakdown, ratio, swiglu_width(shape.d_model), reference_total,
                           (reference_total - breakdown.parts["total"]) / reference_total)
