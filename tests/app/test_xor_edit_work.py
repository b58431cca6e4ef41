"""Issue 13: what an edit in the C4 two-neuron lab does no longer than it must — the table measures
only the columns whose texts changed, the neuron maps keep their sentence points, the weight
editor does not fit its cell row again for the cell it already shows — and what the learner sees
stays what a full refresh shows."""
import numpy as np
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QTableWidget

from app.explorer.weights_editor import WeightEditor
from app.labs.xor.neurons import MAP_POINTS
from app.labs.xor.table import XorTable
from core.labs import xor as lab
from tests.app.test_xor_lab import lab_panel  # noqa: F401 (the fixture: the C4 lab at its desk size)

OUTPUT, VERDICT = XorTable.OUTPUT, XorTable.VERDICT




def settle():
    for _ in range(3):
        QApplication.instance().processEvents()


def test_an_edit_measures_only_the_table_columns_it_changed(lab_panel, monkeypatch):
    session, panel = lab_panel
    panel.set_focus("ffn")
    settle()
    table = panel.findChild(QTableWidget, "xorTable")
    measured = []
    plain = XorTable.sizeHintForColumn
    monkeypatch.setattr(XorTable, "sizeHintForColumn", lambda self, c: measured.append(c) or plain(self, c))
    widths = [table.horizontalHeader().sectionSize(c) for c in range(6)]
    assert session.set_value("W_out", (0, 0), 1.5)
    settle()
    assert measured and set(measured) <= {OUTPUT, VERDICT}              # the ŷ (and ✓/✗) cells only
    measured.clear()
    panel.overview.refresh(linear=False)                                 # nothing new: nothing measured
    assert measured == []
    # the widths are the ones a whole new fit gives (never narrower: a shorter number keeps its room)
    now = [table.horizontalHeader().sectionSize(c) for c in range(6)]
    table.release()
    table.fit_width()
    assert [table.horizontalHeader().sectionSize(c) for c in range(6)] == now
    assert all(n >= w for n, w in zip(now, widths) if n and w)
    assert table.width() == sum(now[c] for c in range(6) if not table.isColumnHidden(c)) + 2 * table.frameWidth()


def test_a_weight_edit_keeps_the_neuron_maps_points(lab_panel):
    session, panel = lab_panel
    panel.set_focus("neurons")
    settle()
    part = panel.part("neurons")
    before = [points.data for points in part.map_points]
    images = [image.image.copy() for image in part.neuron_images]
    transforms = [image.transform() for image in part.neuron_images]
    assert session.set_value("W_in", (0, 0), 2.5)
    settle()
    assert all(points.data is old for points, old in zip(part.map_points, before))   # not set again
    assert any(not np.array_equal(image.image, old) for image, old in zip(part.neuron_images, images))
    assert [image.transform() for image in part.neuron_images] == transforms
    # W_in[0, 0] is read by neuron 1 only: neuron 2's map is not set (nor drawn) again, unless the
    # shared colour scale moved; both show what core computes
    second = part.neuron_images[1].image
    assert session.set_value("W_in", (0, 0), 2.25)
    settle()
    assert part.neuron_images[1].image is second
    _, maps = lab.neuron_maps(session.config, session.state.weights, MAP_POINTS)
    for image, expected in zip(part.neuron_images, maps):
        assert np.allclose(image.image, expected, atol=1e-6)
    assert session.set_value("W_in", (0, 0), 40.0)                    # a new colour scale: both again
    settle()
    assert part.neuron_images[1].image is not second
    _, maps = lab.neuron_maps(session.config, session.state.weights, MAP_POINTS)
    for image, expected in zip(part.neuron_images, maps):
        assert np.allclose(image.image, expected, atol=1e-5)
    # new sentences' (p, n): the points move
    inputs = session.tensor("inputs").copy()
    inputs[0] = (0.25, 0.75)
    assert session.set_tensor("inputs", inputs, "moved")
    settle()
    for points in part.map_points:
        shown = points.getData()
        assert (shown[0][0], shown[1][0]) == (0.25, 0.75)


def test_an_edit_of_the_shown_cell_does_not_fit_the_cell_row_again(blocklab_window, monkeypatch):
    lab = blocklab_window
    editor = lab.window.findChild(WeightEditor)
    fits = []
    monkeypatch.setattr(editor.cell_controls, "fit_cell_row", lambda: fits.append(1))
    lab.session.select_edit_cell("W_in", (0, 0))
    fits.clear()
    for value in (0.25, -1.5, 3.0):
        assert lab.session.set_value("W_in", (0, 0), value)
    assert fits == []
    assert editor.cell_label.full_text().startswith("W_in[0, 0]")
    lab.session.select_edit_cell("W_in", (1, 0))                        # another cell: fitted again
    assert fits and editor.cell_label.full_text().startswith("W_in[1, 0]")


def test_a_block_edit_does_not_redraw_the_linear_try(lab_panel, monkeypatch):
    """Parts ① and ② (and the overview above them) show the table and the line's a, b, c: a new
    weight of the block changes nothing there, so nothing there is computed or drawn again."""
    session, panel = lab_panel
    panel.set_focus("naive")
    settle()
    naive = panel.part("naive")
    drawn = []
    monkeypatch.setattr(naive, "refresh_plots", lambda: drawn.append("plots"))
    plain_refresh = panel.overview.refresh
    monkeypatch.setattr(panel.overview, "refresh", lambda linear: drawn.append(("top", linear)) or plain_refresh(linear))
    assert session.set_value("W_in", (0, 0), 2.5)
    settle()
    assert drawn == []
    # the block's parts catch up when they come forward
    panel.set_focus("ffn")
    settle()
    assert ("top", False) in drawn
    assert panel.findChild(QDoubleSpinBox, "xorW_in_0_0").value() == 2.5
    # the line's a moved, the table changed, or a new scenario: the linear try is drawn again
    panel.set_focus("naive")
    settle()
    drawn.clear()
    panel.linear.set("a", 0.5)
    settle()
    assert "plots" in drawn and ("top", True) in drawn
    drawn.clear()
    targets = session.tensor("targets").copy()
    targets[0, 0] = 0.5
    assert session.set_tensor("targets", targets, "0.5")
    settle()
    assert "plots" in drawn and ("top", True) in drawn
    # undo: the table is back, so is the linear try
    drawn.clear()
    session.undo_stack.undo()
    settle()
    assert "plots" in drawn
