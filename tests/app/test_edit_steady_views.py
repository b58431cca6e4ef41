"""Issue 13: an edit's new numbers re-measure, re-tick and re-lay out nothing that stays.

Counts work (range changes, texts set, paints), never time."""
from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QApplication

from tests.app.helpers import make_session, show

BENCH_VALUES = [0.25 * ((step % 8) - 4) + 0.125 for step in range(16)]   # tools/bench.py's edit cycle


def settle():
    app = QApplication.instance()
    for _ in range(4):
        app.processEvents()


def test_round_out_reaches_round_numbers_and_keeps_the_bars_over_half():
    from app.explorer.plots.residual import round_out
    assert round_out(-1.4348, 1.7561) == (-2.0, 2.0)
    assert round_out(0.0, 0.37) == (0.0, 0.4)
    assert round_out(-3.1e6, 0.0) == (-4e6, 0.0)
    for low, high in ((-1.0, 1.0), (0.0, 0.013), (-7.3, 2.2), (-0.6, 0.0), (-123.0, 456.0)):
        shown = round_out(low, high)
        assert shown[0] <= low and shown[1] >= high
        assert high - low >= 0.5 * (shown[1] - shown[0])          # not re-ranged at once as too wide
    assert round_out(0.0, 0.0) == (0.0, 0.0)
    assert round_out(-np.inf, 1.0) == (-np.inf, 1.0)


def test_a_sweep_of_edits_re_ranges_the_residual_plot_at_most_once(qtbot, qapp, monkeypatch):
    """A new y range re-ticks and re-measures the axis and lays the plot out again. The bench's
    edit cycle used to widen the range by a hair on nearly every edit; now it reaches out to round
    numbers, and the cycle's bars fit it."""
    from app.explorer.plots import PlotsPanel
    session = make_session()
    panel = show(qtbot, PlotsPanel(session), 800, 450)
    panel.show_tab("residual")
    settle()
    tab = panel.residual_tab
    ranges = []
    set_range = tab.plot.setYRange
    monkeypatch.setattr(tab.plot, "setYRange", lambda *a, **k: ranges.append(a) or set_range(*a, **k))
    drawn = 0
    for value in BENCH_VALUES:
        assert session.set_value("W_in", (0, 0), value)
        settle()
        stages = tab._stages()
        token = session.selected_token
        low, high = tab.plot.vb.viewRange()[1]
        for n, hook in enumerate(stages):                        # the new numbers, inside the axis
            np.testing.assert_array_equal(panel.residual_bars[n].opts["height"], session.trace[hook][token])
            assert low <= session.trace[hook][token].min() and session.trace[hook][token].max() <= high
        drawn += 1
    assert drawn == len(BENCH_VALUES)
    assert len(ranges) <= 1, ranges


def test_an_edit_redraws_only_the_hidden_unit_maps_whose_numbers_it_changed(qtbot, qapp, monkeypatch):
    """A map's redraw renders its image anew and re-sets its cell numbers; the ReLU keeps
    mlp.hook_post as it was when a pre-activation stays below zero, and then that map is left."""
    from app.explorer.plots import PlotsPanel
    session = make_session("r45-ffn.json")      # ReLU, one token: tools/bench.py's R45 steps
    panel = show(qtbot, PlotsPanel(session), 800, 450)
    panel.show_tab("hidden")
    settle()
    tab = panel.hidden_tab
    drawn = {name: [] for name in tab.hooks}
    for name, heatmap in tab.maps.items():
        if name in drawn:
            set_data = heatmap.set_data
            monkeypatch.setattr(heatmap, "set_data",
                                lambda *a, name=name, set_data=set_data, **k: drawn[name].append(1) or set_data(*a, **k))
    kept = 0
    for value in BENCH_VALUES:
        before = {name: session.trace[hook] for name, hook in tab.hooks.items()}
        levels = tab.maps["pre"].levels
        for calls in drawn.values():
            calls.clear()
        assert session.set_value("W_in", (0, 0), value)
        settle()
        for name, hook in tab.hooks.items():
            changed = session.trace[hook] is not before[name] or tab.maps[name].levels != levels
            assert len(drawn[name]) == (1 if changed else 0), (value, name)
            kept += not changed
            np.testing.assert_array_equal(np.asarray(tab.maps[name].image.image),
                                          session.trace[hook].astype(np.float32))
    assert kept > 0                   # the sweep has edits that leave a map as it was


def test_a_number_cell_is_tinted_without_a_pen_and_keeps_its_whole_box(qtbot, qapp):
    """A dimmed node (a lesson's highlight) is drawn translucent, where stroking each cell's outline
    took the slow path on every repaint of a changed number: the line between two cells is the
    node's fill showing through a half-pixel inset instead. Marks and pointing use the whole box."""
    from PySide6.QtCore import QPointF, Qt

    from app.explorer.dataflow import DataflowView
    from app.explorer.dataflow_items import CELL_GAP, NumberNode
    session = make_session("r45-ffn.json")
    view = show(qtbot, DataflowView(session), 900, 320)
    settle()
    nodes = [view.node_item(hook) for hook in view.node_names()]
    numbered = [node for node in nodes if isinstance(node, NumberNode)]
    assert numbered
    for node in numbered:
        for i, (cell, whole) in enumerate(zip(node.cells, node.cell_rects)):
            assert cell.pen().style() == Qt.PenStyle.NoPen
            assert cell.rect() == whole.adjusted(CELL_GAP / 2, CELL_GAP / 2, -CELL_GAP / 2, -CELL_GAP / 2)
            assert node.channel_at(whole.topLeft() + QPointF(0.1, 0.1)) == i      # the gap points at it too
    node = numbered[0]
    node.set_marked({0})
    assert node.marks[0].rect() == node.cell_rects[0].adjusted(*(1.5 * node.geometry.zoom * s for s in (1, 1, -1, -1)))


def test_the_trace_is_searched_for_non_finite_values_once_per_edit(qtbot, qapp, monkeypatch):
    """The status line, the checks, the diagram and the inspector all ask which values are not
    finite after an edit: the whole trace's answer is found once and shared."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from app.explorer import finite_marks
    from app.explorer.config_panel import InvariantsPanel
    from app.explorer.dataflow import DataflowView
    from app.explorer.inspector import Inspector
    session = make_session()
    host = QWidget()
    layout = QVBoxLayout(host)
    flow, inspector, checks = DataflowView(session), Inspector(session), InvariantsPanel(session)
    for widget in (flow, inspector, checks):
        layout.addWidget(widget)
    show(qtbot, host, 900, 900)
    session.select(hook="hook_resid_post")
    settle()
    searches = []
    found = finite_marks.with_origins
    monkeypatch.setattr(finite_marks, "with_origins", lambda issues: searches.append(1) or found(issues))
    for value in BENCH_VALUES[:4]:
        searches.clear()
        assert session.set_value("W_in", (0, 0), value)
        settle()
        assert len(searches) == 1, value
    assert not finite_marks.watch_for(session).any_severe()
    # (an overflow reaching every view and leaving it: tests/app/test_extreme_numbers.py)


def test_an_edit_of_another_tensor_leaves_the_weight_editor_s_cell_box_unpainted(qtbot, qapp):
    """The selected cell's box shows a weight the edit did not touch: setting its own value again
    repainted it and every panel beneath its corner. Its own cell's edit still shows at once."""
    from app.explorer.weights_editor import WeightEditor
    from tests.app.test_edit_repaints import Paints
    session = make_session()
    editor = show(qtbot, WeightEditor(session), 420, 480)
    settle()
    spin = editor.cell_controls.value_spin
    paints = Paints([spin, spin.lineEdit()])
    shown = editor.current_tensor()
    other = next(name for name in session.tensor_names() if name not in (shown, "inputs", "targets"))
    index = (0,) * session.tensor(other).ndim
    for value in BENCH_VALUES[:4]:
        paints.count = 0
        assert session.set_value(other, index, value)
        settle()
        assert paints.count == 0, value
    cell = tuple(editor.current_cell())
    assert session.set_value(shown, cell, 0.625)
    settle()
    assert paints.count >= 1 and spin.value() == 0.625


def test_the_table_cells_frame_follows_the_zoom_it_is_painted_at(qtbot, qapp):
    """The number delegate works out its sizes once per zoom, not once per cell: a new zoom still
    gives the selection frame its new thickness."""
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

    from app.explorer.tables import NumberDelegate
    from app.widgets.appearance import appearance
    session = make_session()
    from app.explorer.inspector import Inspector
    inspector = show(qtbot, Inspector(session), 420, 420)
    settle()
    delegate, index = NumberDelegate(), inspector.model.index(0, 0)

    def dark_rows(zoom):
        appearance().set_zoom(zoom)
        image = QImage(120, 40, QImage.Format.Format_RGB32)
        image.fill(QColor("#808080"))
        option = QStyleOptionViewItem()
        option.rect = image.rect()
        option.state = QStyle.StateFlag.State_Selected
        painter = QPainter(image)
        delegate.paint(painter, option, index)
        painter.end()
        return sum(1 for y in range(20) if image.pixelColor(60, y).name() == "#111111")

    try:
        thin, thick = dark_rows(1.0), dark_rows(2.0)
    finally:
        appearance().set_zoom(1.0)
    assert thin == 2 and thick == 4


def test_the_checks_word_an_edit_only_where_a_verdict_changed(qtbot, qapp, monkeypatch):
    """The checks' texts say a verdict, so an edit that keeps every verdict words nothing again;
    their tooltips (the values) are worded when hovered, with the edit's values."""
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication

    from app.explorer.config_panel import InvariantsPanel
    session = make_session()
    panel = show(qtbot, InvariantsPanel(session), 420, 120)
    settle()
    worded = []
    text_of = panel.text_of
    monkeypatch.setattr(panel, "text_of", lambda inv: worded.append(inv.key) or text_of(inv))
    for value in BENCH_VALUES[:4]:
        assert session.set_value("W_in", (0, 0), value)
        settle()
    assert worded == []
    assert all(label.text().startswith("✓") for label in panel.labels.values())
    key = "resid_post.sum"
    label = panel.labels[key]
    QApplication.sendEvent(label, QHelpEvent(QEvent.Type.ToolTip, QPoint(2, 2), label.mapToGlobal(QPoint(2, 2))))
    inv = next(inv for inv in panel.found() if inv.key == key)
    from app.widgets.style import format_number
    assert label.toolTip().split("\n")[1] == ", ".join(format_number(float(v)) for v in inv.values.ravel())
    assert panel.tooltip_of(key) == label.toolTip()


def test_an_edit_sets_only_the_cell_numbers_that_changed_and_places_none_again(qtbot, qapp, monkeypatch):
    """A hidden-unit map's numbers: an edit gives each map's number item its new texts and inks;
    it neither places the item again (no new geometry) nor shows it again. (They were one
    pyqtgraph TextItem per cell, which fitted its transform whenever shown.) The numbers read the
    new values."""
    from app.explorer.plots import PlotsPanel
    from app.explorer.plots.heatmap import NumbersItem
    session = make_session("r45-ffn.json")
    panel = show(qtbot, PlotsPanel(session), 800, 450)
    panel.show_tab("hidden")
    settle()
    calls = {"prepareGeometryChange": 0, "setVisible": 0, "set_numbers": 0}
    for name in calls:
        plain = getattr(NumbersItem, name)
        monkeypatch.setattr(NumbersItem, name, lambda self, *a, name=name, plain=plain, **k:
                            calls.__setitem__(name, calls[name] + 1) or plain(self, *a, **k))
    numbered = [heatmap for heatmap in panel.hidden_tab.maps.values() if heatmap.numbers.shown()]
    assert numbered
    for value in BENCH_VALUES[:6]:
        assert session.set_value("W_in", (0, 0), value)
        settle()
        for heatmap in numbered:
            numbers = heatmap.numbers
            shown = [number.text for number in numbers.shown()]
            assert shown == numbers.format(numbers.values)                 # the new numbers, in order
    assert calls["set_numbers"] > 0                                          # (the edits changed numbers)
    assert calls["prepareGeometryChange"] == 0 and calls["setVisible"] == 0, calls


def test_the_diagram_asks_once_per_edit_whether_a_value_is_not_finite(qtbot, qapp, monkeypatch):
    """Each redrawn node asked twice (its marks, its border); the answer is one for the trace."""
    from app.explorer import finite_marks
    from app.explorer.dataflow import DataflowView
    session = make_session()
    view = show(qtbot, DataflowView(session), 900, 500)
    settle()
    asked = []
    plain = finite_marks.FiniteWatch.any_severe
    monkeypatch.setattr(finite_marks.FiniteWatch, "any_severe", lambda self: asked.append(1) or plain(self))
    for value in BENCH_VALUES[:4]:
        asked.clear()
        assert session.set_value("W_in", (0, 0), value)
        settle()
        assert len(asked) == 1, value
    assert all(node.problem is None for node in view.flow.layout.nodes.values())
    # (an overflow marks its nodes and an edit back unmarks them: tests/app/test_extreme_numbers.py)


def test_the_residual_bars_work_out_their_box_once_per_change_and_it_is_pyqtgraphs(qtbot, qapp, monkeypatch):
    """pyqtgraph's BarGraphItem works out its bounding box (its data's bounds, and the pen's half
    width in item units) on every ask, and the scene asks several times per edit and per paint.
    The residual stream's bars keep it until their bars or their view change; it is the same box."""
    import pyqtgraph as pg

    from app.explorer.plots import PlotsPanel
    session = make_session("r45-ffn.json")      # tools/bench.py's R45 steps
    panel = show(qtbot, PlotsPanel(session), 800, 450)
    panel.show_tab("residual")
    settle()
    worked = []                      # the costly part of working it out: the pen's width in item units
    measure = pg.BarGraphItem.pixelVectors
    monkeypatch.setattr(pg.BarGraphItem, "pixelVectors", lambda item, *a: worked.append(1) or measure(item, *a))
    work = pg.BarGraphItem.boundingRect
    bars = panel.residual_bars
    for value in BENCH_VALUES:
        assert session.set_value("W_in", (0, 0), value)
        settle()                                                 # painted, as on screen
    asks = len(worked)
    assert asks <= 2 * len(BENCH_VALUES), asks                   # about once per changed bar (was 3 per bar)
    for bar in bars:
        assert bar.boundingRect() == work(bar)                   # the box pyqtgraph would give
    panel.resize(640, 300)                                       # a new size: a pixel is another length
    settle()
    for bar in bars:
        assert bar.boundingRect() == work(bar)
