"""The whole explorer window, driven the way a learner does through the blocklab plugin.

Only what the window itself decides is tested here: that one edit reaches every view, the
menus and shortcuts, the plugin's driver, File → Open refusing a file, the Chinese interface.
What the Session decides is in test_session.py, what one view shows in that view's test.
"""
import numpy as np
import pytest
from PySide6.QtGui import QAction, QImage
from PySide6.QtWidgets import QGroupBox, QLabel

from core.block import forward, mse
from core.explain import explain
from tests.conftest import SCENARIOS


def expected_trace(lab):
    s = lab.session.state
    return forward(s.config, s.weights, s.inputs)


def test_edit_a_cell_and_every_view_follows(blocklab_window):
    lab = blocklab_window
    before_mse = lab.mse
    lab.select_hook("mlp.hook_post", token=0)
    shown_before = lab.window.dataflow.node_texts("mlp.hook_post")
    assert lab.set_weight("W_in", (0, 4), "2.5")
    assert lab.tensor("W_in")[0, 4] == 2.5
    trace = expected_trace(lab)
    assert np.array_equal(lab.trace("mlp.hook_post"), trace["mlp.hook_post"])
    # The inspector shows the selected hidden unit with its recomputed value.
    index = lab.session.selected_index("mlp.hook_post")
    ex = explain(lab.session.config, lab.session.state.weights, trace, "mlp.hook_post", index)
    assert ex.substituted in lab.inspector_text()
    # The hidden-unit heatmaps show the new trace.
    plots = lab.window.plots
    assert np.allclose(plots.post_image.image, trace["mlp.hook_post"].astype(np.float32))
    # The block diagram shows the new hidden unit.
    assert lab.window.dataflow.node_texts("mlp.hook_post") != shown_before
    # The MSE moved and the status bar shows it.
    assert lab.mse == pytest.approx(mse(trace.output, lab.session.state.targets))
    assert lab.mse != before_mse
    assert f"{lab.mse:.6f}" in lab.window.mse_label.text()
    # A refused entry changes nothing, and the status bar says why.
    assert not lab.set_weight("W_in", (1, 1), "abc")
    assert lab.status_text()
    assert lab.tensor("W_in")[0, 4] == 2.5


def test_keyboard_undo_redo(blocklab_window):
    lab = blocklab_window
    lab.set_weight("inputs", (0, 0), "0.125")
    lab.window.activateWindow()
    lab.window.undo_action.trigger()
    assert lab.tensor("inputs")[0, 0] == 1.0
    assert lab.window.undo_action.shortcut().toString() == "Ctrl+Z"
    assert "Ctrl+Shift+Z" in [k.toString() for k in lab.window.redo_action.shortcuts()]
    lab.redo()
    assert lab.tensor("inputs")[0, 0] == 0.125
    lab.undo()
    assert lab.tensor("inputs")[0, 0] == 1.0


def test_edit_menu_actions_reach_the_session(blocklab_open):
    lab = blocklab_open(SCENARIOS / "r45-ffn.json")
    action = lambda name: lab.find(QAction, name)  # noqa: E731
    menus = [a.text().replace("&", "") for a in lab.window.menuBar().actions()]
    assert menus == ["File", "Edit", "View", "Lessons", "Language", "Help"]
    assert lab.mse is None
    assert lab.find(QLabel, "statusMse").text() == "no targets"
    action("actionUseOutputAsTarget").trigger()
    assert lab.mse == 0.0
    assert lab.find(QLabel, "statusMse").text() == "Block output vs targets: MSE 0.000000"
    lab.set_weight("W_in", (0, 0), "2")
    assert lab.mse > 0
    action("actionResetAll").trigger()
    assert lab.tensor("W_in")[0, 0] == lab.session.loaded.weights["W_in"][0, 0]
    assert lab.mse is None


def test_the_driver_picks_toggles_and_selects_like_a_user(blocklab_window):
    lab = blocklab_window
    flow = lab.window.dataflow
    lab.pick_activation("gelu")
    assert lab.session.config.activation == "gelu"
    assert np.array_equal(lab.trace("mlp.hook_post"), expected_trace(lab)["mlp.hook_post"])
    # pre-norm moves the norm node in the diagram of the window
    assert flow.node_rect("ln2.hook_out").center().x() > flow.node_rect("hook_mlp_out").center().x()
    lab.pick("configPlacement", "pre")
    assert lab.session.config.norm_placement == "pre"
    assert flow.node_rect("ln2.hook_out").center().x() < flow.node_rect("mlp.hook_pre").center().x()
    # attention off: gone from the trace, the diagram and the plots
    lab.toggle("configAttention", False)
    assert "attn.hook_pattern" not in lab.trace()
    assert not any(name.startswith("attn.") for name in flow.node_names())
    assert lab.window.plots.attention_tab.stack.currentWidget() is lab.window.plots.attention_tab.off_label
    lab.toggle("configAttention", True)
    assert "attn.hook_pattern" in lab.trace()
    lab.select_hook("ln2.hook_scale", token=3)
    assert (lab.session.selected_hook, lab.session.selected_token) == ("ln2.hook_scale", 3)
    with pytest.raises(KeyError):
        lab.pick("configMask", "diagonal")
    with pytest.raises(KeyError):
        lab.show_tensor("W_nothing")
    with pytest.raises(LookupError):
        lab.find(QLabel, "noSuchLabel")


def test_a_refused_file_keeps_the_open_scenario_and_a_good_one_opens(blocklab_window, tmp_path):
    lab = blocklab_window
    lab.set_weight("W_in", (0, 0), "3")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "blocklab-scenario", "version": 1, "config": {"d_model": NaN}}')
    assert not lab.open(bad)
    assert lab.tensor("W_in")[0, 0] == 3
    assert "config" in lab.status_text()
    assert lab.open(SCENARIOS / "c4-xor.json")
    assert lab.session.tokens == ("好吃", "不好吃", "难吃", "不难吃")
    assert lab.mse == 0.0
    assert lab.window.dataflow.node_names() == list(lab.trace())      # every view shows the new block
    assert "c4-xor.json" in lab.window.windowTitle() and "block-default" not in lab.window.windowTitle()


def test_chinese_interface(blocklab_open):
    lab = blocklab_open(SCENARIOS / "block-default.json", language="zh")
    titles = [action.text() for action in lab.window.menuBar().actions()]
    assert titles[0].startswith("文件")
    assert lab.find(QGroupBox, "configBox").title() == "块的选项"


def test_a_new_mse_repaints_the_status_label_without_a_relayout(blocklab_window):
    """Issue 13: the live MSE changed on every edit, QLabel.setText asked the window for a
    layout pass, and the whole status bar painted twice per edit. Now the label alone paints: it
    is opaque, so the status bar behind it is not painted again either."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication
    lab = blocklab_window
    label, bar = lab.window.mse_label, lab.window.statusBar()
    lab.window.show()
    app = QApplication.instance()
    app.processEvents()
    seen = []

    class Watch(QObject):
        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.Paint):
                seen.append((watched.objectName() or type(watched).__name__, event.type()))
            return False

    watch = Watch()
    for widget in (bar, label):
        widget.installEventFilter(watch)
    for value in ("0.25", "0.5"):              # the MSE keeps its digits: the label keeps its size
        before = label.text()
        seen.clear()
        assert lab.set_weight("W_in", (0, 0), value)
        app.processEvents()
        app.processEvents()
        assert label.text() != before and f"{lab.mse:.6f}" in label.text()
        assert not [name for name, kind in seen if kind == QEvent.Type.LayoutRequest]
        assert [name for name, kind in seen if kind == QEvent.Type.Paint] == ["statusMse"]
    # The whole text shows, also after a longer one (then the label grows, with a relayout).
    assert label.width() >= label.fontMetrics().horizontalAdvance(label.text())
    short = label.text()
    width = label.width()
    label.setText(short + " (a longer text)")
    app.processEvents()
    assert label.width() > width
    assert label.width() >= label.fontMetrics().horizontalAdvance(label.text())
    # A shorter text keeps the room (no relayout, no second paint of the status bar per edit: the
    # C4 lab's MSE goes from 12.5 to 3.25 and back), drawn where a label of its own width, at the
    # right end, draws it.
    longer = label.width()
    seen.clear()
    label.setText(short)
    app.processEvents()
    app.processEvents()
    assert label.width() == longer and label.text() == short
    assert not [name for name, kind in seen if kind == QEvent.Type.LayoutRequest]
    from app.widgets.steady_label import SteadyLabel
    natural = SteadyLabel(short)
    natural.setFont(label.font())
    natural.setPalette(label.palette())
    assert 0 < natural.width() < label.width()
    rgb = QImage.Format.Format_RGB32
    shown = label.grab().toImage().convertToFormat(rgb)
    assert shown.copy(label.width() - natural.width(), 0, natural.width(), label.height()) == \
        natural.grab().toImage().convertToFormat(rgb)
    extra = label.width() - natural.width()
    assert len({shown.pixel(x, y) for x in range(extra) for y in range(label.height())}) == 1   # nothing drawn there
    # Another block (or language) gives the room back.
    assert lab.open(SCENARIOS / "block-default.json")
    app.processEvents()
    assert label.width() == width              # its MSE, 0.0…, as wide as before the longer text


def test_the_unsaved_mark_is_set_once_not_on_every_edit(blocklab_window):
    """Issue 13: setWindowModified re-set the window title on every edit, unchanged."""
    from PySide6.QtCore import QEvent, QObject
    lab = blocklab_window
    changes = []

    class Watch(QObject):
        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() == QEvent.Type.ModifiedChange:
                changes.append(lab.window.isWindowModified())
            return False

    watch = Watch()
    lab.window.installEventFilter(watch)
    for value in (0.25, 0.5, 0.75):
        assert lab.session.set_value("W_in", (0, 0), value)
    assert lab.window.isWindowModified() and changes == [True]
    lab.window.undo_action.trigger()
    lab.window.undo_action.trigger()
    lab.window.undo_action.trigger()
    assert not lab.window.isWindowModified() and changes == [True, False]
