"""In Chinese, the lab panels show no stray English: every visible text of every part, walked
as the learner sees it, holds only Chinese, numbers, symbols and the names the allow-list keeps."""
from __future__ import annotations

import html
import re

import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel, QListWidget, QTabBar, QTableWidget, QWidget

from app.labs import build_lab_panel
from app.session import Session
from core.formats.scenario import load_scenario
from tests.conftest import SCENARIOS

# Symbols, weight and hook names, function and model names: the same in every language.
ALLOWED = set("""p n y a b c h z x s t d T X Y W M id act max tanh erf softmax token FFN MSE ReLU GELU SiLU
LayerNorm RMSNorm GPT W_in W_out b_in b_out W_up W_down b_up b_down W_V W_O d_ff d_model d_out n_embd
Vaswani newstest2013 C C4 SwiGLU blocks W_Q W_K W_gate""".split())              # C: the paper's rows "(C)"; C4: the lesson
NAMES = re.compile(r"Block Lab|GPT-2 small|Attention Is All You Need|[\w-]+\.json|\b[\w.]*hook_\w+")


def visible_texts(root: QWidget) -> list[tuple[str, str]]:
    found = []
    for widget in root.findChildren(QWidget):
        if not widget.isVisible():
            continue
        name = widget.objectName()
        if isinstance(widget, (QLabel, QAbstractButton)):
            found.append((name, widget.text()))
        elif isinstance(widget, QTabBar):
            found += [("tab", widget.tabText(i)) for i in range(widget.count())]
        elif isinstance(widget, QComboBox):
            found += [(name, widget.itemText(i)) for i in range(widget.count())]
        elif isinstance(widget, QListWidget):
            found += [(name, widget.item(i).text()) for i in range(widget.count())]
        elif isinstance(widget, QTableWidget):
            for column in range(widget.columnCount()):
                if widget.isColumnHidden(column):
                    continue
                header = widget.horizontalHeaderItem(column)
                found += [(name, header.text())] if header else []
                found += [(name, widget.item(row, column).text()) for row in range(widget.rowCount())
                          if widget.item(row, column)]
        elif isinstance(widget, pg.GraphicsView):
            for item in widget.items():
                if isinstance(item, pg.LabelItem):
                    found.append((name, item.text))
                elif isinstance(item, pg.TextItem):
                    found.append((name, item.toPlainText()))
                elif isinstance(item, pg.AxisItem) and item.label.isVisible():
                    found.append((name, item.labelText))
        if widget.toolTip():
            found.append((name + " tooltip", widget.toolTip()))
    return found


def stray_english(root: QWidget) -> set[tuple[str, str]]:
    stray = set()
    for name, text in visible_texts(root):
        plain = NAMES.sub(" ", html.unescape(re.sub(r"<[^>]+>", " ", text)))
        for word in re.findall(r"[A-Za-z][A-Za-z0-9_]*", plain):
            if word not in ALLOWED:
                stray.add((name, word))
    return stray


@pytest.fixture
def chinese():
    from app import i18n
    i18n.install("zh")
    yield
    i18n.install("en")


def _shown_lab(qtbot, lab_id: str, scenario: str):
    """The lab's panel on `scenario`, shown at 1100×800."""
    panel = build_lab_panel(lab_id, Session(load_scenario(SCENARIOS / scenario)))
    qtbot.addWidget(panel)
    panel.resize(1100, 800)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


@pytest.mark.parametrize("lab_id, scenario", [("xor", "c4-xor.json"), ("ffn-page", "c4-xor.json"),
                                              ("ffn-page", "block-default.json")])
def test_every_part_of_a_lab_in_chinese(qtbot, chinese, lab_id, scenario):
    panel = _shown_lab(qtbot, lab_id, scenario)
    for part in panel.parts():
        panel.set_focus(part)
        assert stray_english(panel) == set(), part
    panel.close()


def test_every_part_of_the_trained_model_lab_in_chinese(qtbot, chinese, monkeypatch):
    """With the layer ranked (over a short text here), a layer open in the explorer and neurons
    knocked out, so that every text the parts can show is on screen; and the hover texts."""
    from app.labs.model.state import ModelLabState
    from tests.app.helpers import settle
    monkeypatch.setattr(ModelLabState, "RANK_CHARS", 256)
    monkeypatch.setattr(ModelLabState, "ABLATION_WINDOWS", 1)
    session = Session(load_scenario(SCENARIOS / "block-default.json"))
    panel = build_lab_panel("model", session)
    qtbot.addWidget(panel)
    panel.resize(1100, 800)
    panel.show()
    qtbot.waitExposed(panel)
    state = panel.state
    settle(lambda: state.rank_job is None, turns=1_000_000)
    state.set_typed("床前明月光X")
    state.open_in_explorer(2)
    state.knock_out(2, 303)
    state.knock_out(1, 5)
    session.set_value("W_in", (0, 0), 1.0)
    state.measure_ablation()
    settle(lambda: state.ablation_job is None, turns=1_000_000)
    for part in panel.parts():
        panel.set_focus(part)
        settle(lambda: True)
        assert stray_english(panel) == set(), part
    text = panel.findChild(QWidget, "modelTypeText")
    heatmap = panel.findChild(QWidget, "modelHeatmap")
    hovers = [text.hover_text(len(text.chars) - 1), heatmap.cell_text(0, 0)]
    assert all(not re.findall(r"[A-Za-z]{2,}", hover) for hover in hovers), hovers
    assert session.undo_stack.text(0) == "敲掉隐藏单元 303"
    panel.close()


def _punctuation_rule():
    import importlib.util

    from tests.conftest import ROOT
    spec = importlib.util.spec_from_file_location("chinese_punctuation", ROOT / "tools" / "chinese_punctuation.py")
    rule = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rule)
    return rule


@pytest.mark.parametrize("lab_id, scenario", [("xor", "c4-xor.json"), ("ffn-page", "c4-xor.json"),
                                              ("model", "block-default.json")])
def test_the_chinese_on_screen_follows_the_punctuation_rule(qtbot, chinese, lab_id, scenario):
    """The texts as shown, numbers and names filled in, not only the translation files: a
    separator or a quotation mark joined in code escapes tools/chinese_punctuation.py."""
    rule = _punctuation_rule()
    panel = _shown_lab(qtbot, lab_id, scenario)
    wrong = set()
    for part in panel.parts():
        panel.set_focus(part)
        wrong |= {(part, name, problem) for name, text in visible_texts(panel)
                  for problem in rule.problems(html.unescape(text))}
    assert wrong == set()
    panel.close()


def test_the_two_neuron_labs_refusal_in_chinese(qtbot, chinese):
    session = Session(load_scenario(SCENARIOS / "c4-xor.json"))
    panel = build_lab_panel("xor", session)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    assert session.set_config(norm="layernorm", d_ff=3)
    message = panel.findChild(QLabel, "xorMismatch")
    assert message.isVisible()
    assert "归一化 = LayerNorm（实验需要 无）" in message.text() and "d_ff = 3（实验需要 2）" in message.text()
    assert stray_english(panel) == set()
    panel.close()


def test_every_part_of_the_generations_lab_in_chinese(qtbot, chinese):
    """The generations lab cites models, methods and authors by name (DeepSeek, Qwen, Post-LN …) and
    writes identifiers (W_gate, float16, C11), as the seed's Chinese does: its texts are held to the
    window-wide word rule and names (tests/app/test_no_english_in_chinese.py), every part shown,
    the slow demonstrations drawn, a cell chosen so that its sources are spelled out."""
    from tests.app.test_no_english_in_chinese import stray_words

    session = Session(load_scenario(SCENARIOS / "gen-anchor.json"))
    panel = build_lab_panel("generations", session)
    qtbot.addWidget(panel)
    panel.resize(1100, 800)
    panel.show()
    qtbot.waitExposed(panel)
    panel.table.choose("norm", "gpt2")
    stray = set()
    for part in panel.parts():
        panel.set_focus(part)
        worker = {"residual_growth": panel.residual.worker, "placement": panel.placement.worker}.get(part)
        if worker is not None:
            qtbot.waitUntil(lambda: not worker.is_running(), timeout=60_000)
        stray |= {(name, word) for name, text in visible_texts(panel)
                  for word in stray_words(NAMES.sub(" ", html.unescape(re.sub(r"<[^>]+>", " ", text))))}
    assert stray == set()
    panel.close()
