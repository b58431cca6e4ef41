"""The whole explorer window, driven the way a learner does, through the blocklab plugin."""
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from core.block import forward, mse
from core.explain import explain
from tests.conftest import ROOT, SCENARIOS


def expected_trace(lab):
    s = lab.session.state
    return forward(s.config, s.weights, s.inputs)


def test_edit_a_cell_and_every_view_follows(blocklab_window):
    lab = blocklab_window
    before_mse = lab.mse
    lab.select_hook("mlp.hook_post", token=0)
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
    # The MSE moved and the status bar shows it.
    assert lab.mse == pytest.approx(mse(trace.output, lab.session.state.targets))
    assert lab.mse != before_mse
    assert f"{lab.mse:.6f}" in lab.window.mse_label.text()


@pytest.mark.parametrize("text", ["abc", "nan", "inf", "-Infinity", "1e7", ""])
def test_bad_entries_are_refused_and_change_nothing(blocklab_window, text):
    lab = blocklab_window
    before = {name: np.array(a) for name, a in lab.trace().items()}
    weight = np.array(lab.tensor("W_in"))
    assert not lab.set_weight("W_in", (1, 1), text)
    assert np.array_equal(lab.tensor("W_in"), weight)
    assert all(np.array_equal(before[n], lab.trace(n)) for n in before)
    assert lab.status_text()            # the user is told why


def test_undo_redo_restore_exact_values(blocklab_window):
    lab = blocklab_window
    original = np.array(lab.trace("hook_resid_post"))
    lab.set_weight("W_Q", (1, 2, 0), "0.75")
    edited = np.array(lab.trace("hook_resid_post"))
    assert not np.array_equal(original, edited)
    lab.undo()
    assert np.array_equal(lab.trace("hook_resid_post"), original)
    assert lab.tensor("W_Q")[1, 2, 0] == 1.0
    lab.redo()
    assert np.array_equal(lab.trace("hook_resid_post"), edited)


def test_keyboard_undo_redo(blocklab_window, qtbot):
    lab = blocklab_window
    lab.set_weight("inputs", (0, 0), "0.125")
    lab.window.activateWindow()
    lab.window.undo_action.trigger()
    assert lab.tensor("inputs")[0, 0] == 1.0
    assert lab.window.undo_action.shortcut().toString() == "Ctrl+Z"
    assert "Ctrl+Shift+Z" in [k.toString() for k in lab.window.redo_action.shortcuts()]


@pytest.mark.parametrize("activation", ["gelu", "gelu_tanh", "silu", "identity"])
def test_activation_selector_recomputes(blocklab_window, activation):
    lab = blocklab_window
    lab.pick_activation(activation)
    assert lab.session.config.activation == activation
    assert np.array_equal(lab.trace("mlp.hook_post"), expected_trace(lab)["mlp.hook_post"])
    assert not np.array_equal(lab.trace("mlp.hook_post"), np.maximum(lab.trace("mlp.hook_pre"), 0)) \
        or activation == "relu"


def test_pre_norm_moves_the_norm_node(blocklab_window):
    lab = blocklab_window
    flow = lab.window.dataflow
    post_x = flow.node_rect("ln2.hook_out").center().x()
    assert post_x > flow.node_rect("hook_mlp_out").center().x()
    lab.pick("configPlacement", "pre")
    assert lab.session.config.norm_placement == "pre"
    assert "ln2.hook_in" in lab.trace() and np.array_equal(lab.trace("ln2.hook_in"), lab.trace("hook_resid_mid"))
    assert flow.node_rect("ln2.hook_out").center().x() < flow.node_rect("mlp.hook_pre").center().x()


def test_switching_attention_off_removes_it_everywhere(blocklab_window):
    lab = blocklab_window
    lab.toggle("configAttention", False)
    assert "attn.hook_pattern" not in lab.trace()
    assert not any(name.startswith("attn.") for name in lab.window.dataflow.node_names())
    lab.toggle("configAttention", True)
    assert "attn.hook_pattern" in lab.trace()


def test_gated_creates_weights_deterministically_and_says_so(blocklab_window):
    lab = blocklab_window
    lab.toggle("configGated", True)
    assert "W_gate" in lab.session.tensor_names()
    assert "W_gate" in lab.status_text()
    first = np.array(lab.tensor("W_gate"))
    lab.undo()
    assert "W_gate" not in lab.session.tensor_names()
    lab.redo()
    assert np.array_equal(lab.tensor("W_gate"), first)


def test_causal_mask_zeroes_the_upper_triangle(blocklab_window):
    lab = blocklab_window
    lab.pick("configMask", "causal")
    pattern = lab.trace("attn.hook_pattern")
    assert np.all(np.triu(pattern[0], k=1) == 0)
    assert np.allclose(lab.window.plots.pattern_image(0).image, pattern[0].astype(np.float32))


def test_eps_zero_on_a_constant_row_turns_a_check_red(blocklab_window):
    lab = blocklab_window
    from PySide6.QtWidgets import QLabel, QLineEdit
    lab.toggle("configAttention", False)
    for column in range(4):                       # token 0 becomes a constant row
        lab.set_weight("inputs", (0, column), "0.5")
    lab.set_weight("W_out", (0, 0), "0")          # keep the FFN from changing the row
    lab.set_weight("W_out", (1, 1), "0")
    lab.set_weight("W_out", (2, 2), "0")
    lab.set_weight("W_out", (3, 3), "0")
    lab.set_weight("W_out", (4, 2), "0")
    lab.set_weight("W_out", (5, 3), "0")
    eps = lab.find(QLineEdit, "configEps")
    eps.setFocus()
    eps.selectAll()
    lab.qtbot.keyClicks(eps, "0")
    lab.qtbot.keyClick(eps, Qt.Key_Return)
    assert lab.session.config.eps == 0
    label = lab.find(QLabel, "invariant_ln2.var")
    assert label.property("violated") is True
    assert "✗" in label.text()


def test_a_refused_file_keeps_the_open_scenario(blocklab_window, tmp_path):
    lab = blocklab_window
    lab.set_weight("W_in", (0, 0), "3")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "blocklab-scenario", "version": 1, "config": {"d_model": NaN}}')
    assert not lab.open(bad)
    assert lab.tensor("W_in")[0, 0] == 3
    assert "config" in lab.status_text()


def test_open_another_scenario(blocklab_window):
    lab = blocklab_window
    assert lab.open(SCENARIOS / "c4-xor.json")
    assert lab.session.tokens == ("好吃", "不好吃", "难吃", "不难吃")
    assert lab.mse == 0.0
    lab.pick_activation("identity")
    assert lab.mse == 1.0


def test_use_output_as_target(blocklab_open):
    lab = blocklab_open(SCENARIOS / "r45-ffn.json")
    assert lab.mse is None
    lab.window.findChild(type(lab.window.undo_action), "actionUseOutputAsTarget").trigger()
    assert lab.mse == 0.0
    lab.set_weight("W_in", (0, 0), "2")
    assert lab.mse > 0


def test_chinese_interface(blocklab_open):
    lab = blocklab_open(SCENARIOS / "block-default.json", language="zh")
    titles = [action.text() for action in lab.window.menuBar().actions()]
    assert titles[0].startswith("文件")
    from PySide6.QtWidgets import QGroupBox
    assert lab.find(QGroupBox, "configBox").title() == "块的选项"


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_screenshot_command_writes_a_png_of_that_size(tmp_path, size):
    out = tmp_path / "shot.png"
    result = subprocess.run([sys.executable, "main.py", "screenshot", str(out), "--size", f"{size[0]}x{size[1]}"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0, result.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == size
    colours = {image.pixel(x, y) for x in range(0, size[0], 37) for y in range(0, size[1], 29)}
    assert len(colours) > 20                       # not blank


def test_screenshot_of_a_bad_file_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    result = subprocess.run([sys.executable, "main.py", "screenshot", str(tmp_path / "x.png"), str(bad)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1


def test_two_drags_of_one_cell_are_two_undo_steps(blocklab_window):
    lab = blocklab_window
    session = lab.session
    start = session.undo_stack.count()
    for value in (0.1, 0.2, 0.3):
        session.set_value("W_in", (0, 0), value, merge=True)
    assert session.undo_stack.count() == start + 1          # one drag
    session.end_gesture()                                    # the slider was released
    for value in (0.4, 0.5):
        session.set_value("W_in", (0, 0), value, merge=True)
    assert session.undo_stack.count() == start + 2
    lab.undo()
    assert lab.tensor("W_in")[0, 0] == 0.3
    lab.undo()
    assert lab.tensor("W_in")[0, 0] == 1.0


def test_exception_hook_logs_and_keeps_running(blocklab_window, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QMessageBox

    import app.launch as launch
    shown = []
    monkeypatch.setattr(launch, "LOG_PATH", tmp_path / "blocklab.log")
    monkeypatch.setattr(QMessageBox, "exec", lambda self: shown.append(self.detailedText()) or 0)
    try:
        raise RuntimeError("a bug in a slot")
    except RuntimeError as error:
        launch._exception_hook(type(error), error, error.__traceback__)
    assert shown and "a bug in a slot" in shown[0]
    assert "a bug in a slot" in (tmp_path / "blocklab.log").read_text()
    assert blocklab_window.window.isVisible()


def test_typing_a_size_is_one_change(blocklab_window):
    from PySide6.QtWidgets import QSpinBox
    lab = blocklab_window
    box = lab.find(QSpinBox, "configDff")
    start = lab.session.undo_stack.count()
    box.setFocus()
    box.selectAll()
    lab.qtbot.keyClicks(box, "12")
    lab.qtbot.keyClick(box, Qt.Key_Return)
    assert lab.session.config.d_ff == 12
    assert lab.session.undo_stack.count() == start + 1
    assert "W_in" in lab.status_text()                      # it says which weights it made


def test_a_shape_that_comes_back_brings_its_weights_back(blocklab_window):
    lab = blocklab_window
    original = np.array(lab.tensor("W_in"))
    lab.session.set_config(d_ff=7)
    assert lab.tensor("W_in").shape == (4, 7)
    lab.session.set_config(d_ff=6)
    assert np.array_equal(lab.tensor("W_in"), original)


def test_tabbing_through_eps_changes_nothing(blocklab_window):
    from PySide6.QtWidgets import QLineEdit
    lab = blocklab_window
    lab.session.set_config(eps=1.2345678e-05)
    count = lab.session.undo_stack.count()
    eps = lab.find(QLineEdit, "configEps")
    eps.editingFinished.emit()                               # focus left the field, nothing typed
    assert lab.session.config.eps == 1.2345678e-05
    assert lab.session.undo_stack.count() == count


def test_commas_in_a_cell_are_refused(blocklab_window):
    lab = blocklab_window
    assert not lab.set_weight("W_in", (0, 0), "1,000")
    assert lab.tensor("W_in")[0, 0] == 1.0
