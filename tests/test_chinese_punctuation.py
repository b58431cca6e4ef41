"""Chinese text uses full-width punctuation (the rule: tools/chinese_punctuation.py, docs/lessons.md)."""
import importlib.util

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("chinese_punctuation", ROOT / "tools" / "chinese_punctuation.py")
rule = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rule)


@pytest.mark.parametrize("text", [
    "好吃, 不好吃", "没有可检查的:这个块", "ε 必须是 0 到 1 之间的数;仍为 %1。", "仍为 %1.", "想一想:%1",
    "GELU(精确,erf)", "随机(种子 %2)", "亮起(h ≥ 0.5)的句子", "门控(SwiGLU / GEGLU)", "随机权重(种子 0,float16 存储)",
    "代入 a = %1,b = %2", "为什么?", "“恰好一个”.", "（p = 1，n = 0)",
    "学习率 %2、λ = %3,%1 步之后", "注意力：%1 个头 × %2,%3",
])
def test_half_width_punctuation_in_a_chinese_sentence_is_found(text):
    assert rule.problems(text), text


@pytest.mark.parametrize("text", [
    "FFN(x) = max(0, x·W₁ + b₁)·W₂ + b₂", "好吃(1, 0)、不难吃 (0,1)", "p, n 恰好一个成立", "ln1.w = 1.0, d_ff = 6 的块",
    "Block Lab 场景 (*.json)", "文件(&F)", "显示详情...", "hook_resid_post[0]：块的输出", "ŷ > 0.5？", "比例 1:2",
    "Vaswani 等 2017 式 (2)", "a random English sentence, with (parentheses): fine.",
    "PNG 图片 (*.png);;SVG 图片 (*.svg)", "只有 .csv、.tsv、.txt 和 .npy 文件能存张量", "存为表格（CSV、.npy）…",
])
def test_formulas_numbers_code_and_english_keep_their_half_width_marks(text):
    assert rule.problems(text) == [], text


@pytest.mark.parametrize("text, fixed", [
    ("好吃, 不好吃", "好吃，不好吃"),
    ("GELU(精确,erf)", "GELU（精确，erf）"),
    ("当前输出已设为目标:在你改动之前 MSE 为 0。", "当前输出已设为目标：在你改动之前 MSE 为 0。"),
    ("%1 随机 (种子 %2)", "%1 随机（种子 %2）"),
    ("GPT-2 small 一层的形状,随机权重(种子 0,float16 存储):64 个词元", "GPT-2 small 一层的形状，随机权重（种子 0，float16 存储）：64 个词元"),
])
def test_the_fixer_writes_full_width_marks_without_spaces_around_them(text, fixed):
    assert rule.fix(text) == fixed
    assert rule.problems(fixed) == []


@pytest.mark.parametrize("text, fixed", [
    ("线性模型把“两件事同时成立”当成两件事", "线性模型把「两件事同时成立」当成两件事"),
    ("token “%1” 的残差流", "token「%1」的残差流"),
    ("头 %1：查询“%2”→ 键“%3”", "头 %1：查询「%2」→ 键「%3」"),
    ("把\"小明\"这一行，和\"小王\"比", "把「小明」这一行，和「小王」比"),
    ("「外面‘里面’外面」", "「外面『里面』外面」"),
])
def test_chinese_quotes_are_corner_brackets_and_a_mix_is_caught(text, fixed):
    """One convention, the seeds' and most of the translations': 「」 (inside them 『』). In the
    interface font “” are Latin glyphs, narrow and hugging the Han characters beside them."""
    assert rule.problems(text), text
    assert rule.fix(text) == fixed
    assert rule.problems(fixed) == []
    assert rule.problems("注意力只管「取多少」，FFN 管“怎么组合”")            # the mix, as shipped before


@pytest.mark.parametrize("text, fixed", [
    ("共 26 个字。 模型一次最多读 128 个字。", "共 26 个字。模型一次最多读 128 个字。"),
    ("值 0.5 （截断前 0.7）", "值 0.5（截断前 0.7）"),
    ("好吃、 不难吃", "好吃、不难吃"),
])
def test_no_space_beside_a_full_width_mark(text, fixed):
    assert rule.problems(text), text
    assert rule.fix(text) == fixed
    assert rule.problems(fixed) == []
    assert rule.problems("第一句。<br>第二句。") == []                       # markup is no space


def test_quotes_in_english_and_in_markup_are_left_alone():
    assert rule.problems("a “quoted” English sentence, with 'single' ones") == []
    assert rule.problems('<span style="color:%1">■</span> 我们') == []
    assert rule.problems('<span style="color:%1">■</span> %2', chinese=True) == []


def test_a_separator_translation_is_chinese_too():
    assert rule.problems("; ") and rule.fix("; ") == "；"
    assert rule.problems(",") and rule.fix(", ") == "，"
    assert rule.problems("、") == []


def test_a_translation_without_a_han_character_is_still_chinese():
    """A formula line in the zh file is shown in the Chinese window: its prose marks are full-width."""
    assert rule.problems("<b>%1</b>: p = %2, n = %3") == []                  # as English, fine
    assert rule.fix("<b>%1</b>:p = %2,n = %3", chinese=True) == "<b>%1</b>：p = %2，n = %3"
    assert rule.fix("ŷ > 0.5?", chinese=True) == "ŷ > 0.5？"
    assert rule.problems("FFN(x) = max(0, x·W₁ + b₁)", chinese=True) == []
    assert rule.problems("神经元 %1:%2", chinese=True)                          # a placeholder is no digit


def test_every_chinese_text_shipped_uses_full_width_punctuation():
    """The zh translations, the lessons' zh texts and the scenarios' zh titles."""
    problems = rule.check_files()
    assert not problems, f"{len(problems)} half-width marks in Chinese text (python tools/chinese_punctuation.py " \
                         "--fix rewrites the clear cases):\n" + "\n".join(problems[:60])
