"""File → Export and Copy as NumPy code: the menu hands each image and table to the view that
writes it (stubs stand in for the views and record what they were asked), writes the explanation
and the script itself (the script through core), and turns every failure into one message with
nothing else changed."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QGuiApplication

from app import document as files
from app import export
from core.formats.generate import preset
from core.formats.numpy_code import numpy_script, parse_output
from tests.app.fake_window import fake_window


@pytest.fixture
def chooser(monkeypatch, tmp_path):
    """The export dialog answers with tmp_path/<name> (a test may set another name, or None)."""
    state = {"name": None, "asked": [], "warnings": []}

    def choose(parent, title, suggestion, filters):
        state["asked"].append((title, suggestion.name, filters))
        return None if state["name"] is None else tmp_path / state["name"]

    monkeypatch.setattr(export, "choose_export_path", choose)
    monkeypatch.setattr(files, "warn", lambda parent, title, text: state["warnings"].append(text))
    return state


@pytest.fixture
def window(qtbot):
    w = fake_window(qtbot)
    w.messages = []
    w.session.message.connect(w.messages.append)
    return w


def test_image_exports_are_drawn_by_the_views(window, chooser, tmp_path):
    exporter = window.exporter
    exporter.menu.aboutToShow.emit()
    assert exporter.diagram.isEnabled() and exporter.plot.isEnabled()
    chooser["name"] = "figure.svg"
    exporter.diagram.trigger()
    assert chooser["asked"][-1][1] == "block-default diagram.png"
    assert "SVG image (*.svg)" in chooser["asked"][-1][2]
    chooser["name"] = "plot.png"
    exporter.plot.trigger()
    assert chooser["asked"][-1][1] == "block-default plot.png"
    assert window.exported == [("diagram", tmp_path / "figure.svg"), ("plot", tmp_path / "plot.png")]
    assert window.messages[-1] == f"Exported {tmp_path / 'plot.png'}"


def test_a_wrong_suffix_or_a_failing_view_is_one_message(window, chooser, tmp_path):
    calls = []
    window.dataflow.export_image = calls.append
    chooser["name"] = "figure.jpg"
    assert not window.exporter.export_diagram()
    assert calls == [] and chooser["warnings"] == ["Choose a name ending in .png or .svg."]

    def refuses(path):
        raise OSError(13, "Permission denied")

    window.dataflow.export_image = refuses
    chooser["name"] = "figure.png"
    assert not window.exporter.export_diagram()
    assert chooser["warnings"][-1] == f"Permission denied ({tmp_path / 'figure.png'})"
    window.plots.export_current = lambda path: False
    assert not window.exporter.export_plot()
    assert chooser["warnings"][-1].endswith("could not be written.")
    chooser["name"] = None                                   # the user cancels: nothing at all
    assert not window.exporter.export_plot()
    assert len(chooser["warnings"]) == 3


def test_the_selected_values_and_the_edited_weight_go_to_the_inspector_and_the_editor(window, chooser, tmp_path):
    """The menu names what is selected and hands the chosen path over; what the inspector and the
    weight editor write is theirs (test_inspector.py, test_weights_editor.py)."""
    session = window.session
    session.select(hook="attn.hook_pattern")
    window.exporter.update_actions()
    assert window.exporter.values.text() == "The values of attn.hook_pattern as a table (CSV, .npy)…"
    chooser["name"] = "pattern.csv"
    assert window.exporter.export_values()
    assert chooser["asked"][-1][:2] == ("Export the values of attn.hook_pattern", "block-default attn.hook_pattern.csv")
    session.select_edit_cell("W_Q", (1, 0, 0))
    window.exporter.update_actions()
    assert window.exporter.weights.text() == "The weight W_Q as a table (CSV, .npy)…"
    chooser["name"] = "wq.npy"
    assert window.exporter.export_weights()
    assert chooser["asked"][-1][:2] == ("Export the weight W_Q", "block-default W_Q.csv")
    assert window.exported == [("values", tmp_path / "pattern.csv"), ("weights", tmp_path / "wq.npy")]
    chooser["name"] = "wq.xlsx"                                # not a table this menu writes: asked again
    assert not window.exporter.export_weights()
    assert len(window.exported) == 2 and chooser["warnings"] == ["Choose a name ending in .csv or .npy."]


def test_the_explanation_as_text(window, chooser, tmp_path):
    chooser["name"] = "why.txt"
    assert window.exporter.export_equation()
    assert (tmp_path / "why.txt").read_text(encoding="utf-8") == "mlp.hook_post = ReLU(pre) = 0.5\n"
    window.inspector.equation_text = lambda: "z = 1 + 2 = 3\n\n"        # written with one final newline
    assert window.exporter.export_equation()
    assert (tmp_path / "why.txt").read_text(encoding="utf-8") == "z = 1 + 2 = 3\n"


def test_the_block_as_a_script_and_on_the_clipboard(window, chooser, tmp_path):
    window.session.set_value("W_in", (0, 0), 1 / 3)
    chooser["name"] = "block.py"
    assert window.exporter.export_script()
    assert (tmp_path / "block.py").read_text(encoding="utf-8") == numpy_script(window.session.scenario)
    QGuiApplication.clipboard().setText("")
    window.exporter.copy.trigger()
    text = QGuiApplication.clipboard().text()
    assert text == numpy_script(window.session.scenario)
    assert window.messages[-1].startswith("Copied a NumPy script of ")
    namespace_out = {}
    import contextlib
    import io
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(text, "<clipboard>", "exec"), namespace_out)
    out, _ = parse_output(output.getvalue())
    assert np.max(np.abs(out - window.session.trace.output)) <= 1e-12


def test_a_big_block_is_not_put_on_the_clipboard(qtbot, chooser, tmp_path):
    from app.session import Session
    from tests.app.fake_window import FakeWindow
    window = FakeWindow(Session(preset("d64")), None)
    qtbot.addWidget(window)
    messages = []
    window.session.message.connect(messages.append)
    QGuiApplication.clipboard().setText("before")
    assert not window.exporter.copy_numpy_code()
    assert QGuiApplication.clipboard().text() == "before"
    assert "too many for the clipboard" in messages[-1] and "File → Export" in messages[-1]
    chooser["name"] = "big.py"
    assert window.exporter.export_script()
    assert chooser["asked"][-1][1] == "block.py"
    assert (tmp_path / "big-arrays.npz").exists()


def test_the_export_menu_in_chinese(window):
    from app import i18n
    from tests.app.helpers import settle
    i18n.install("zh")
    settle(lambda: window.exporter.menu.title() == "导出(&E)")
    window.exporter.update_actions()
    texts = [a.text() for a in window.exporter.menu.actions() if not a.isSeparator()]
    assert texts == ["块的结构图，存为图片（PNG、SVG）…", "当前显示的图，存为图片（PNG、SVG）…",
                     "hook_resid_post 的数值，存为表格（CSV、.npy）…", "权重 W_Q，存为表格（CSV、.npy）…",
                     "检查器里的说明，存为文本…", "整个块，存为 NumPy 脚本…"]
