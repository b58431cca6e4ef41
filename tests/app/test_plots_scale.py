"""The plots from the lesson block to a GPT-2-small layer: heads past what fits behind a picker,
wide layers as images updated in place, untouched plots skipped after an edit, the MSE sweep
of a large block on the worker thread (cancelled by the next edit), and the later generations'
hooks (QK-Norm, output gate, clamped SwiGLU)."""
from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication

from app.session import Session
from core.analysis import sweep_range
from core.formats.generate import preset
from tests.app.helpers import FakeClock, make_session, settle, show

TIMEOUT_MS = 30_000
PRESENT_1024 = (520, 340)


@lru_cache(maxsize=None)
def _scenario(name: str):
    return preset(name, targets=True)


def session_of(name: str) -> Session:
    return Session(_scenario(name), clock=FakeClock())


def panel_on(qtbot, session, size=PRESENT_1024):
    from app.explorer.plots import PlotsPanel
    return show(qtbot, PlotsPanel(session), *size)


def turns(count: int = 5) -> None:
    for _ in range(count):
        QCoreApplication.processEvents()


def pattern_of(image) -> np.ndarray:
    return np.asarray(image.image)


def test_twelve_heads_are_reached_with_the_picker(qtbot):
    session = session_of("gpt2-small")
    panel = panel_on(qtbot, session)
    panel.show_tab("attention")
    turns()
    tab = panel.attention_tab
    pattern = session.trace["attn.hook_pattern"]
    shown = tab.shown_heads()
    assert 1 <= len(shown) < 12 and tab.picker_bar.isVisible()
    assert tab.head_picker.count() == 12 and tab.head_picker.itemText(6) == "head 7"
    # the learner picks head 7: it is on screen, and it is the session's head (the diagram follows)
    tab.head_picker.setCurrentIndex(6)
    tab.head_picker.activated.emit(6)
    turns()
    assert session.selected_head == 6 and 6 in tab.shown_heads()
    slot = tab.shown_heads().index(6)
    np.testing.assert_array_equal(pattern_of(panel.pattern_image(slot)), pattern[6].astype(np.float32))
    assert tab.slots[slot].plot.titleLabel.text == "head 7"
    assert "of 12" in tab.page_label.text()
    # and the other way round: another view selects head 12
    session.select(head=11)
    assert 11 in tab.shown_heads() and tab.head_picker.currentIndex() == 11
    panel.close()


def test_a_lesson_block_shows_every_head_when_there_is_room(qtbot):
    panel = panel_on(qtbot, make_session(), (1024, 420))
    turns()
    tab = panel.attention_tab
    assert tab.shown_heads() == [0, 1] and not tab.picker_bar.isVisible()
    assert all(numbers.visible for numbers in tab.numbers[:2])     # and with their numbers
    panel.close()


def test_many_heads_on_a_big_screen_form_a_grid(qtbot):
    session = session_of("d64")                                     # 4 heads of 16 tokens
    panel = panel_on(qtbot, session, (1200, 700))
    turns()
    tab = panel.attention_tab
    assert tab.shown_heads() == [0, 1, 2, 3] and not tab.picker_bar.isVisible()
    assert tab.arrangement.rows * tab.arrangement.columns >= 4
    for slot, head in enumerate(tab.shown_heads()):
        np.testing.assert_array_equal(pattern_of(tab.images[slot]),
                                      session.trace["attn.hook_pattern"][head].astype(np.float32))
    panel.close()


def test_wide_layers_are_images_updated_in_place(qtbot):
    session = session_of("gpt2-small")
    panel = panel_on(qtbot, session)
    panel.show_tab("hidden")
    turns()
    pre, post = panel.pre_image, panel.post_image
    for item, hook in ((pre, "mlp.hook_pre"), (post, "mlp.hook_post")):
        image = np.asarray(item.image)
        assert image.shape == (64, 3072) and image.dtype == np.float32 and image.flags.c_contiguous
        np.testing.assert_array_equal(image, session.trace[hook].astype(np.float32))
        assert item.levels is not None and item.levels[0] == -item.levels[1]
    panel.show_tab("residual")
    turns()
    residual = panel.residual_tab
    assert residual.mode == "image" and not residual.plot.isVisible()
    stages = [np.asarray(session.trace[h][0]) for h in ("hook_resid_pre", "hook_resid_mid", "hook_resid_post")]
    np.testing.assert_array_equal(np.asarray(residual.heatmap.image.image), np.stack(stages).astype(np.float32))
    # an edit: the same items, new numbers
    panel.show_tab("hidden")
    assert session.set_value("W_in", (0, 5), 0.5)
    turns()
    assert panel.pre_image is pre and panel.post_image is post
    np.testing.assert_array_equal(np.asarray(pre.image)[:, 5], session.trace["mlp.hook_pre"][:, 5].astype(np.float32))
    panel.close()


def test_an_edit_redraws_only_the_plots_it_changed(qtbot, monkeypatch):
    """W_out changes the FFN's output only: the attention patterns and hidden units are the very
    arrays drawn before (core.incremental shares them), so their images are not set again."""
    session = session_of("d256")
    panel = panel_on(qtbot, session)
    drawn = {}
    for name in ("attention", "hidden"):
        panel.show_tab(name)
        turns()
    slots = panel.attention_tab.shown_heads()
    images = [panel.pattern_image(i) for i in range(len(slots))] + [panel.pre_image, panel.post_image]
    calls = []
    for image in images:
        original = image.setImage
        monkeypatch.setattr(image, "setImage", lambda *a, original=original, **k: (calls.append(1), original(*a, **k)))
        drawn[id(image)] = image.image
    assert session.set_value("W_out", (3, 7), 0.25)
    assert "mlp.hook_post" not in session.trace.recomputed and "hook_mlp_out" in session.trace.recomputed
    for name in ("attention", "hidden"):
        panel.show_tab(name)
        turns()
    assert calls == []
    assert all(image.image is drawn[id(image)] for image in images)
    # a W_in edit changes the hidden units: those are drawn again, the patterns still not
    assert session.set_value("W_in", (3, 7), 0.25)
    turns()
    assert len(calls) == 2                       # pre and post
    np.testing.assert_array_equal(np.asarray(panel.post_image.image),
                                  session.trace["mlp.hook_post"].astype(np.float32))
    panel.close()


@pytest.mark.parametrize("generation", ["anchor", "divergence"])
def test_attention_works_with_qk_norm_and_the_output_gate(qtbot, generation):
    from core.labs.generations import preset as generation_preset
    session = Session(generation_preset(generation), clock=FakeClock())
    assert "attn.hook_q_normed" in session.trace and "attn.hook_z_gated" in session.trace
    panel = panel_on(qtbot, session, (1024, 420))
    turns()
    tab = panel.attention_tab
    for slot, head in enumerate(tab.shown_heads()):
        np.testing.assert_array_equal(pattern_of(tab.images[slot]),
                                      session.trace["attn.hook_pattern"][head].astype(np.float32))
    panel.close()


def test_a_clamped_swiglu_shows_the_clamped_values(qtbot):
    from core.labs.generations import preset as generation_preset
    session = Session(generation_preset("divergence"), clock=FakeClock())
    limit = session.config.ffn_clamp
    assert session.set_value("W_in", (0, 2), 40.0)            # push some pre values past the limit
    pre = session.trace["mlp.hook_pre"]
    assert np.abs(pre).max() > limit
    panel = panel_on(qtbot, session, (1024, 420))
    panel.show_tab("hidden")
    turns()
    tab = panel.hidden_tab
    assert tab.hooks == {"pre": "mlp.hook_pre_clamped", "gate": "mlp.hook_gate_clamped", "post": "mlp.hook_post"}
    np.testing.assert_array_equal(np.asarray(panel.pre_image.image),
                                  session.trace["mlp.hook_pre_clamped"].astype(np.float32))
    np.testing.assert_array_equal(np.asarray(panel.gate_image.image),
                                  session.trace["mlp.hook_gate_clamped"].astype(np.float32))
    assert np.abs(np.asarray(panel.pre_image.image)).max() <= limit
    assert "clip(pre, ±7)" in tab.maps["pre"].plot.titleLabel.text
    # hovering a clamped cell tells the value before clamping too
    token, unit = map(int, np.argwhere(np.abs(pre) > limit)[0])
    vb = tab.maps["pre"].plot.vb
    where = vb.mapViewToScene(pg_point(unit + 0.5, token + 0.5))
    text = tab.hover_text(where)
    assert f"unit h{unit + 1}" in text and "before clamping" in text
    from app import i18n
    from tools.chinese_punctuation import problems
    i18n.install("zh")                        # in Chinese: no space before the full-width bracket
    chinese = tab.hover_text(where)
    assert "（截断前" in chinese and " （" not in chinese and not problems(chinese, chinese=True), chinese
    i18n.install("en")
    # the activation tab marks the limit and puts the clamped gate on the curve
    panel.show_tab("activation")
    turns()
    activation = panel.activation_tab
    assert activation.clamp_line.isVisible() and activation.clamp_line.value() == limit
    x, _ = activation.points.getData()
    np.testing.assert_array_equal(np.asarray(x), session.trace["mlp.hook_gate_clamped"][0])
    panel.close()


def pg_point(x: float, y: float):
    from PySide6.QtCore import QPointF
    return QPointF(x, y)


def test_a_large_sweep_runs_off_the_gui_thread_and_the_next_edit_cancels_it(qtbot, monkeypatch):
    import app.explorer.plots.mse as mse_module
    session = session_of("d64")
    panel = panel_on(qtbot, session)
    tab = panel.mse_tab
    started, release = threading.Event(), threading.Event()
    stopped: list[bool] = []
    real = mse_module.mse_sweep

    def first_blocks(*args, progress=None, **kwargs):
        if not started.is_set():                       # the first sweep waits until the test says
            started.set()
            release.wait(TIMEOUT_MS / 1000)
            stopped.append(progress(0.5) is False)
            return None
        return real(*args, progress=progress, **kwargs)

    monkeypatch.setattr(mse_module, "mse_sweep", first_blocks)
    panel.show_tab("mse")
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT_MS)
    assert tab.worker.busy                                     # off the GUI thread …
    qtbot.waitUntil(tab.progress.isVisible, timeout=TIMEOUT_MS)   # … and, taking a while, with its progress
    first = tab.worker.generation
    session.select_edit_cell("W_in", (0, 0))
    assert session.set_value("W_in", (0, 0), 0.3)              # the next edit …
    qtbot.waitUntil(lambda: tab.worker.generation > first, timeout=TIMEOUT_MS)
    release.set()
    qtbot.waitUntil(lambda: not tab.sweep_stale, timeout=TIMEOUT_MS)
    assert tab.worker.wait(TIMEOUT_MS)
    turns()
    assert stopped == [True]                                   # … told the first sweep to stop
    assert tab.sweeps_applied == 1 and not tab.progress.isVisible()
    xs, ys = (np.asarray(a) for a in tab.sweep_curve.getData())
    np.testing.assert_array_equal(xs, sweep_range(0.3))
    state = session.state
    expected = real(state.config, state.weights, state.inputs, state.targets, "W_in", (0, 0), xs)
    np.testing.assert_allclose(ys, expected, rtol=1e-10)
    panel.close()


def test_switching_language_keeps_the_state(qtbot):
    from app import i18n
    session = session_of("gpt2-small")
    panel = panel_on(qtbot, session)
    tab = panel.attention_tab
    session.select(head=4)
    turns()
    shown = tab.shown_heads()
    images = list(tab.images)
    i18n.install("zh")
    try:
        settle(lambda: tab.head_label.text() == "头")
        assert tab.head_picker.itemText(4) == "头 5" and tab.head_picker.currentIndex() == 4
        assert tab.shown_heads() == shown and list(tab.images) == images
        assert panel.tabText(0) == "注意力"
    finally:
        i18n.install("en")
    settle(lambda: tab.head_label.text() == "Head")
    assert tab.head_picker.currentIndex() == 4 and session.selected_head == 4
    panel.close()
