"""What `tools/soak.py` found, each reproduced by the smallest test that shows it."""
from __future__ import annotations

import pytest

from tests.app.helpers import show


def test_a_wide_ffn_costs_no_number_items_in_the_hidden_unit_maps(qtbot, session):
    """Soak, seed 1: typing 300 into d_ff left 3 × T × 300 hidden pg.TextItems in the hidden-unit
    maps (numbers are shown only up to 16 units), kept for good: +580 MB and 36 s per action
    after a few such edits. A map's numbers are now one item, whatever the matrix, and texts
    are formatted only for numbers that may be shown."""
    from app.explorer.plots.hidden import HiddenUnitsTab
    tab = show(qtbot, HiddenUnitsTab(session), 700, 400)
    scene_items = len(tab.graphics.scene().items())
    assert session.set_config(d_ff=300)
    tab.refresh()
    assert [len(heatmap.numbers.shown()) for heatmap in tab.maps.values()] == [0, 0, 0]
    assert all(heatmap.numbers.item is None or len(heatmap.numbers.item.texts) <= 400
               for heatmap in tab.maps.values())
    assert session.set_config(d_ff=8)            # numbered again: every cell has its number
    tab.refresh()
    T = len(session.tokens)
    shown = next(iter(tab.maps.values())).numbers.shown()
    assert len(shown) in (0, T * 8)
    assert len({(number.row, number.column) for number in shown}) == len(shown)          # each on its own cell
    assert len({(round(number.rect.center().x()), round(number.rect.center().y())) for number in shown}) == len(shown)
    assert len(tab.graphics.scene().items()) <= scene_items + len(tab.maps)             # one number item per map



def test_the_number_items_of_a_heatmap_follow_the_matrix_shown(qtbot, session):
    """Soak: +642 pg.TextItems (+1,284 scene items, +5,000 weakrefs) in the hidden-unit maps in 1,800
    actions, and as many in the attention maps: each map kept a number item for every cell of the
    largest matrix it had ever numbered (up to 400), hidden. An item costs ~40 KB (its
    QTextDocument): 10 maps × 400 would be 160 MB. A map's numbers are now one item (no TextItem,
    no QTextDocument), whatever the matrix."""
    import gc

    import pyqtgraph as pg

    from app.explorer.plots.hidden import HiddenUnitsTab

    def text_items() -> int:
        gc.collect()
        return sum(isinstance(o, pg.TextItem) for o in gc.get_objects())

    tab = show(qtbot, HiddenUnitsTab(session), 1200, 700)
    T = len(session.tokens)
    assert session.set_config(d_ff=2)
    tab.refresh()
    small = text_items()
    assert session.set_config(d_ff=8)
    tab.refresh()
    shown = [len(heatmap.numbers.shown()) for heatmap in tab.maps.values()]
    assert sorted(shown) == [0, T * 8, T * 8]          # pre and post numbered, every cell (no gate)
    assert text_items() == small
    assert session.set_config(d_ff=2)
    tab.refresh()
    assert sorted(len(heatmap.numbers.shown()) for heatmap in tab.maps.values()) == [0, T * 2, T * 2]
    assert text_items() == small
    tab.close()

def test_a_hidden_ffn_page_survives_a_language_change_after_attention_went_off(qtbot):
    """Soak, seed 1 (action 477): the FFN page, hidden, had not heard that the open block lost its
    attention; a language change refreshed its shuffle demo on the session's block, and
    `shuffle_demo` raised (then PySide6 crashed in the event filters). A hidden part now only marks
    itself stale, and the demo source never runs on a block without attention."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from app.labs.ffn_page import FfnPagePanel
    from app.session import Session
    from core.formats.scenario import load_scenario
    from core.resources import default_scenario
    session = Session(load_scenario(default_scenario()))
    panel = show(qtbot, FfnPagePanel(session), 880, 650)
    panel.set_focus("shuffle")
    panel.hide()
    assert session.set_config(attention=False)
    for part in (panel.shuffle, panel.misconceptions):
        QCoreApplication.sendEvent(part, QEvent(QEvent.Type.LanguageChange))
    assert panel.source.shuffle_result() is not None
    panel.show()
    qtbot.waitExposed(panel)
    assert not panel.source.from_session
    panel.close()


@pytest.mark.answers_its_dialogs                # a timer closes each real popup menu
def test_menus_made_for_one_use_are_deleted(qtbot, session):
    """Soak: each click on the weight editor's File button (and each right-click on the inspector,
    the editor's table or a plot) made a new QMenu child with three actions and their slots, kept
    as long as the window: hundreds after some thousand actions. Each is deleted after use."""
    from PySide6.QtCore import QCoreApplication, QEvent, QTimer
    from PySide6.QtWidgets import QApplication, QMenu

    from app.explorer.weights_editor import WeightEditor
    editor = show(qtbot, WeightEditor(session), 600, 500)

    def close_popup():
        popup = QApplication.activePopupWidget()
        if popup is not None:
            popup.close()

    closer = QTimer()
    closer.timeout.connect(close_popup)
    closer.start(10)
    before = len(editor.findChildren(QMenu))
    for _ in range(5):
        editor.tensor_actions.file_button.click()
    closer.stop()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert len(editor.findChildren(QMenu)) == before
    editor.close()


def test_a_slider_drag_keeps_no_merged_undo_steps(session, clock):
    """Soak: +470 `_CellsCommand` between the checkpoints, though opening a file clears the undo
    stack. QUndoStack.push deletes a command it merges, but PySide keeps the dead wrapper as a
    Python child of the stack (with its arrays) for the Session's life. The Session merges a drag's
    steps itself now: one live command per undo step, none after a load."""
    import gc

    from app.session import _CellsCommand
    from core.formats.scenario import load_scenario
    from core.resources import default_scenario

    def commands() -> int:
        gc.collect()
        return sum(isinstance(o, _CellsCommand) and o._session() is session for o in gc.get_objects())

    cell = (0,) * session.tensor("W_in").ndim
    for step in range(20):                       # one drag: twenty values, one undo step
        assert session.set_value("W_in", cell, step / 10, merge=True)
    assert session.undo_stack.count() == 1 and commands() == 1
    assert session.undo_stack.undoText().endswith("1.9")
    session.undo_stack.undo()
    assert session.tensor("W_in")[cell] != 1.9
    session.undo_stack.redo()
    assert session.tensor("W_in")[cell] == 1.9
    session.load(load_scenario(default_scenario()))
    assert commands() == 0


def test_a_hidden_xor_lab_survives_a_language_change_on_a_block_without_targets(qtbot):
    """Soak, seed 2: the XOR lab, hidden after another file (with no targets) was opened, rewrote its
    table's glosses on a language change from the Session's block and raised (TypeError on
    `targets[row, 0]`); PySide 6.11 then crashed storing the error (a segfault in
    storePythonOverrideErrorOrPrint). A hidden overview now rewrites its glosses when shown."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from app.labs.xor import XorLabPanel
    from app.session import Session
    from core.formats.scenario import load_scenario
    from core.resources import scenarios_dir
    session = Session(load_scenario(scenarios_dir() / "c4-xor.json"))
    panel = show(qtbot, XorLabPanel(session), 880, 650)
    panel.hide()
    session.load(load_scenario(scenarios_dir() / "gen-gpt2.json"))
    assert session.state.targets is None
    QCoreApplication.sendEvent(panel.overview, QEvent(QEvent.Type.LanguageChange))
    session.load(load_scenario(scenarios_dir() / "c4-xor.json"))
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.overview.table.rowCount() == len(session.tokens)
    panel.close()


def test_a_finished_background_job_is_freed(qtbot):
    """Soak: +20 model-lab jobs (each with its thread events and its work's closure) stayed alive
    between the checkpoints: the lab's own job class was held by lambdas connected to its signals.
    The labs now run on the shared Worker; a finished job leaves nothing of itself behind."""
    import gc

    from app.widgets.worker import Worker, _Run

    class Payload:                        # what a job's closure holds (a model's arrays)
        pass

    def alive(kind) -> int:
        gc.collect()
        return sum(type(o) is kind for o in gc.get_objects())

    worker, results = Worker(), []
    worker.finished.connect(results.append)
    before_runs, before_payloads = alive(_Run), alive(Payload)
    for n in range(3):
        payload = Payload()
        worker.start(lambda progress, n=n, payload=payload: n)
        del payload
        qtbot.waitUntil(lambda: len(results) == n + 1)
    assert results == [0, 1, 2]
    qtbot.waitUntil(lambda: not worker.is_running())
    # The result arrives (a queued signal) before the pool thread has let go of the job: wait for
    # the pool. (A job used to be a QRunnable subclass, and PySide's pool kept a reference to
    # each one it had run until a deferred delete that only a running event loop delivers: two
    # of the three were still alive here. The pool now runs a plain callable.)
    assert worker.wait(5000)
    assert alive(_Run) == before_runs and alive(Payload) == before_payloads
    worker.close()



def test_a_click_on_a_scatter_leaves_no_spot_items_behind(qtbot, session):
    """Soak: +1,143 pyqtgraph SpotItems in 1,800 actions. A left click on a scatter's points (the
    activation tab's units) makes a SpotItem for every point (pyqtgraph's pointsAt); the next
    setData dropped the array holding them, but each SpotItem and the array hold each other through
    a numpy object array, a cycle the garbage collector cannot see: leaked for good, per click."""
    import gc

    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtTest import QTest

    from app.explorer.plots.activation import ActivationTab

    def spots() -> int:
        gc.collect()
        return sum(type(o).__name__ == "SpotItem" for o in gc.get_objects())

    tab = show(qtbot, ActivationTab(session), 600, 400)
    before = spots()
    after = []
    for step in range(6):
        xs, ys = tab.points.getData()
        at = tab.graphics.mapFromScene(tab.plot.vb.mapViewToScene(QPointF(float(xs[0]), float(ys[0]))))
        clicked = []
        tab.points.sigClicked.connect(lambda _scatter, points, _event: clicked.append(len(points)))
        QTest.mouseClick(tab.graphics.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
        assert clicked and clicked[0] >= 1            # the click made SpotItems (what leaked) and found a point
        assert session.set_value("W_in", (0, 0), step / 3)
        tab.refresh()
        after.append(spots())
    # only what the last click hit is kept (the scatter's ptsClicked): one click's worth at most
    assert max(after) <= before + len(xs), after
    tab.close()


def test_a_ranked_model_layer_keeps_its_snippets_not_its_activations(qtbot, tmp_path, monkeypatch):
    """Soak: the model lab kept each ranked layer's hidden units at every character of the validation
    text (38,230 × 688 as float16: 50 MB a layer, 200 MB for four), so RSS climbed by 50 MB each time
    the soak's clicks ranked another layer. A ranked layer now keeps each neuron's maximum and its
    snippets (what the lab shows): the same table and snippets, a few hundred KB."""
    import numpy as np

    from app.labs.model import ModelLabPanel
    from app.labs.model.state import ModelLabState, shared_model
    from core.labs import model_lab as lab
    from core.model import neuron_stats
    from tests.app.helpers import make_session, settle
    from tests.core.test_model import synthetic_arrays

    path = tmp_path / "tiny.npz"
    np.savez(path, **synthetic_arrays())
    monkeypatch.setattr(ModelLabState, "RANK_CHARS", 200)
    panel = show(qtbot, ModelLabPanel(make_session(), model_path=path), 1000, 700)
    panel.set_focus("neurons")
    state, model = panel.state, shared_model(path)
    for layer in range(model.config.n_layers):
        state.rank(layer)
        settle(lambda: state.rank_job is None, turns=100_000)
    assert sorted(state.stats) == list(range(model.config.n_layers))
    ids = model.val_ids[:200]
    for layer, kept in state.stats.items():
        arrays = [value for value in vars(kept).values() if isinstance(value, np.ndarray)]
        per_neuron = lab.SNIPPETS * (2 * lab.SNIPPET_RADIUS + 1)      # nothing per character of the text
        assert all(array.shape[0] == model.config.d_ff and array.size <= model.config.d_ff * per_neuron
                   and array.base is None for array in arrays)          # (nor a view that keeps the activations)
        full = neuron_stats(model, ids, layer)
        assert np.array_equal(kept.max_activation, full.max_activation) and kept.chars == len(ids)
        for neuron in (0, int(full.ranked(1)[0])):
            assert [v.snippet for v in lab.snippets(model, kept, neuron)] == \
                [v.snippet for v in lab.snippets(model, full, neuron, ids=ids)]
    panel.close()
    settle(lambda: state.rank_job is None and state.ablation_job is None, turns=100_000)


def test_a_language_switch_keeps_no_translators_of_the_language_left(qapp):
    """Soak: +16 QTranslators in 10,000 actions: each switch to Chinese made two translators as Qt
    children of the application's catalog (its own strings and Qt's), and the switch back only
    dropped the catalog's Python references: each kept its loaded catalogs for the application's life."""
    import gc

    from PySide6.QtCore import QCoreApplication, QTranslator

    from app import i18n

    def translators() -> int:
        gc.collect()
        return sum(isinstance(o, QTranslator) for o in gc.get_objects()) + len(i18n.catalog().findChildren(QTranslator))

    start = i18n.language()
    i18n.install("zh")
    i18n.install("en")
    before = translators()
    for _ in range(4):
        i18n.install("zh")
        assert QCoreApplication.translate("DataflowScene", "input x") == "输入 x"      # in Chinese
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "取消"        # Qt's own strings too
        i18n.install("en")
    assert translators() == before
    i18n.install(start)


def test_no_plot_view_keeps_a_pixmap_of_its_background(blocklab_window):
    """Soak (heaptrack): 13 MB of viewport-sized pixmaps more at the end than after the warm-up,
    made in QGraphicsView::paintEvent: pyqtgraph's views cache their one-colour background, one
    pixmap per view, kept while the view is hidden. No view of the window caches it."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QGraphicsView

    views = blocklab_window.window.findChildren(pg.GraphicsView)
    assert views and all(view.cacheMode() == QGraphicsView.CacheModeFlag.CacheNone for view in views)


def test_a_plot_taken_out_of_its_layout_and_put_back_keeps_no_weakrefs(qtbot):
    """Soak: +13,000 weakrefs in 10,000 actions (to pyqtgraph ButtonItems and TextItems, alive):
    pyqtgraph reconnects an item's view slots, bound methods, whenever the item changes view or
    scene, and PySide 6.11 keeps a weakref per connection of a bound method that its disconnect
    does not drop. The slots are now functions made once per item; they still follow the view."""
    import gc
    import weakref

    import pyqtgraph as pg

    import app.widgets.style  # noqa: F401  (the patch)

    class Label(pg.TextItem):
        moved = 0

        def viewRangeChanged(self):                 # noqa: N802 (pyqtgraph's name)
            Label.moved += 1
            super().viewRangeChanged()

    def weakrefs() -> int:
        gc.collect()
        return sum(type(o) is weakref.ReferenceType for o in gc.get_objects())

    widget = pg.GraphicsLayoutWidget()
    qtbot.addWidget(widget)
    plot = widget.addPlot(row=0, col=0)
    label = Label("x")
    plot.addItem(label)
    widget.resize(300, 200)
    widget.show()
    qtbot.waitExposed(widget)
    for _ in range(3):                              # what is made once
        widget.ci.removeItem(plot)
        widget.ci.addItem(plot, row=0, col=0)
    before = weakrefs()
    for _ in range(50):
        widget.ci.removeItem(plot)
        widget.ci.addItem(plot, row=0, col=0)
    assert weakrefs() - before < 10
    Label.moved = 0
    plot.setXRange(5, 10)
    assert Label.moved >= 1                          # the item still hears of its view's range
    del label
    plot.clear()


def test_the_attention_view_makes_at_most_six_grid_slots_and_keeps_them(qtbot, session):
    """Soak: +2 pyqtgraph PlotItems after the warm-up (+16 top-level widgets: each PlotItem's
    parentless options menus and control panel; +90 widgets in all): the attention view makes a
    grid slot the first time a block has that many heads to show (as many as fit: two at
    1280×800), up to six, and keeps it. It is growth on first use, not a leak: the soak's tour now
    sets 300 heads once in a window twice as large. The slots stop at six, and fewer heads, then
    more again, reuse them."""
    import gc

    import pyqtgraph as pg

    from app.explorer.plots.attention import MAX_HEADS_SHOWN, AttentionTab

    def plot_items() -> int:
        gc.collect()
        return sum(isinstance(o, pg.PlotItem) for o in gc.get_objects())

    tab = show(qtbot, AttentionTab(session), 900, 600)
    assert session.set_config(n_heads=MAX_HEADS_SHOWN + 2)
    tab.refresh()
    slots = list(tab.slots)
    assert len(slots) == MAX_HEADS_SHOWN
    made = plot_items()
    for heads in (1, 2, MAX_HEADS_SHOWN + 3, 5, MAX_HEADS_SHOWN + 1):
        assert session.set_config(n_heads=heads)
        tab.refresh()
    assert tab.slots == slots
    assert plot_items() == made
    tab.close()


def test_the_diagram_measures_chinese_in_the_face_it_draws_it_in(qapp):
    """Soak (mapped font pages): each CJK font file was mapped twice from the start. The block
    diagram measured its lines with a font rebuilt from QFont.toString(), which keeps only the
    first family: Han text fell back to Noto Sans CJK JP while the diagram draws it in the SC face
    of the application font's Chinese fallback, so Qt opened (and mapped) a second face of the
    same file. The measuring font keeps the whole family list."""
    from PySide6.QtGui import QFont, QTextLayout

    from app.explorer import dataflow_style
    from app.widgets.style import with_chinese_fallback

    def faces(font: QFont) -> set[str]:
        layout = QTextLayout("词元注意力", font)
        layout.beginLayout()
        layout.createLine()
        layout.endLayout()
        return {run.rawFont().familyName() for run in layout.glyphRuns()}

    drawn = with_chinese_fallback(dataflow_style.font(16))
    probe = dataflow_style._probe_font(drawn.toString(), tuple(drawn.families()))
    assert faces(probe) == faces(drawn)
    assert dataflow_style.line_height("词元", drawn) > 0


def test_message_boxes_share_one_picture_of_their_icon(blocklab_window, monkeypatch):
    """Each QMessageBox(Icon.Warning, …) asked the style for a new icon and scaled it: a new ~10 KB pixmap in
    QPixmapCache per box, until its 10 MB limit (the soak answers ~740 boxes in 10,000 actions). The app's boxes
    now show one picture per kind: the same pixmap (cache key) each time."""
    from PySide6.QtWidgets import QMessageBox

    from app.document import warn
    from app.help import HelpMenu
    menu = blocklab_window.window.findChild(HelpMenu)
    keys = []
    for _ in range(2):
        box = menu.show_about()
        assert not box.iconPixmap().isNull()
        keys.append(box.iconPixmap().cacheKey())
        box.close()
    assert keys[0] == keys[1]
    seen = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: seen.append(box.iconPixmap().cacheKey()) or 0)
    for _ in range(2):
        warn(blocklab_window.window, "Refused", "x.json is not a scenario")
    assert len(seen) == 2 and seen[0] == seen[1] and seen[0] != keys[0]   # one picture per kind
