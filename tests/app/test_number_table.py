"""The number tables of the inspector and the weight editor never show part of a cell: when the
columns (or rows) do not all fit, the view shows as many as fit whole, and scrolls by whole
columns (rows). A half column is a cut-off number, unreadable from the back row."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.explorer.tables import NumberTable, whole_cell_size
from tests.app.helpers import settle, show


class Numbers(QAbstractTableModel):
    def __init__(self, array: np.ndarray):
        super().__init__()
        self.array = array

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else self.array.shape[0]

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else self.array.shape[1]

    def data(self, index, role=Qt.DisplayRole):
        return f"{self.array[index.row(), index.column()]:.6f}" if role == Qt.DisplayRole else None

    def headerData(self, section, orientation, role=Qt.DisplayRole):  # noqa: N802
        if role != Qt.DisplayRole:
            return None
        return f"h{section + 1}" if orientation == Qt.Horizontal else f"t{section + 1}"


def table_of(qtbot, rows: int, columns: int, width: int, height: int) -> NumberTable:
    """A table in a panel `width` × `height` px, as the inspector lays it out (the table no
    taller than its rows, the rest of the height below it)."""
    table = NumberTable("numbers")
    table.setModel(Numbers(np.linspace(-1.5, 1.5, rows * columns).reshape(rows, columns)))
    table.fit_columns(("−1.500000", "1.500000"), force=True)
    panel = QWidget()
    layout = QVBoxLayout(panel)
    layout.addWidget(table, 1)
    layout.addStretch(0)
    show(qtbot, panel, width, height)
    table.panel = panel                              # kept alive as long as the test holds the table
    return table


def resize_panel(table, width: int, height: int) -> None:
    table.panel.resize(width, height)


def cells_in_view(table) -> list[tuple[int, int, bool]]:
    """Every cell the viewport shows any of: (row, column, shown whole)."""
    viewport = table.viewport().rect()
    found = []
    for row in range(table.model().rowCount()):
        for column in range(table.model().columnCount()):
            rect = table.visualRect(table.model().index(row, column))
            if rect.isValid() and viewport.intersects(rect):
                found.append((row, column, viewport.contains(rect)))
    return found


def no_part_of_a_cell(table) -> bool:
    cells = cells_in_view(table)
    return bool(cells) and all(whole for _row, _column, whole in cells)


@pytest.mark.parametrize("width", [150, 260, 290, 333, 410])
def test_overflowing_columns_show_whole_at_any_width(qtbot, width):
    table = table_of(qtbot, 1, 6, width, 120)
    needed = table.cell_size().width()
    assert 6 * needed > table.viewport().width()               # they do not all fit
    settle(lambda: no_part_of_a_cell(table))
    shown = {column for _row, column, _whole in cells_in_view(table)}
    assert len(shown) == table.viewport().width() // needed    # as many as fit whole, no fewer
    assert all(table.columnWidth(column) >= needed for column in range(6))
    # Scrolled to the end, column by column: still whole cells, and the last one whole in view.
    bar = table.horizontalScrollBar()
    for value in range(bar.minimum(), bar.maximum() + 1):
        bar.setValue(value)
        assert no_part_of_a_cell(table), value
    assert (0, 5, True) in cells_in_view(table)


def test_columns_that_fit_keep_the_width_their_numbers_need(qtbot):
    table = table_of(qtbot, 2, 3, 600, 160)
    settle(lambda: no_part_of_a_cell(table))
    assert [table.columnWidth(c) for c in range(3)] == [table.cell_size().width()] * 3
    assert not table.horizontalScrollBar().isVisible()
    assert len(cells_in_view(table)) == 6


def test_rows_squeezed_by_the_layout_show_whole_too(qtbot):
    table = table_of(qtbot, 12, 2, 400, 150)          # 12 rows need ~300 px
    settle(lambda: no_part_of_a_cell(table))
    rows = {row for row, _column, _whole in cells_in_view(table)}
    assert 1 < len(rows) < 12 and table.verticalScrollBar().isVisible()


def test_a_narrower_table_keeps_the_selected_cell_in_view(qtbot):
    table = table_of(qtbot, 1, 6, 700, 120)
    table.setCurrentIndex(table.model().index(0, 4))
    resize_panel(table, 260, 120)
    settle(lambda: no_part_of_a_cell(table))
    assert (0, 4, True) in cells_in_view(table)


def test_whole_cell_size():
    assert whole_cell_size(80, 6, 600) == 80                   # all fit: as they need
    assert whole_cell_size(80, 6, 250) == 83                   # three fit: they share 250 px
    assert whole_cell_size(80, 6, 70) == 80                    # not even one: the scroll bar shows it
    assert whole_cell_size(80, 0, 250) == 80


def test_the_sideways_rule_finds_a_table_too_wide_and_spares_one_that_fits(qtbot):
    """fit_helpers.sideways_tables (the presentation walk's rule) is not vacuous: a table whose
    columns are wider than its room is reported, with how many px it lacks; given the room, not."""
    from tests.app.fit_helpers import sideways_tables
    table = table_of(qtbot, 2, 12, 300, 200)
    problems = sideways_tables(table.panel)
    short = 12 * table.cell_size().width() + table.verticalHeader().width() + 2 * table.frameWidth() - table.width()
    assert len(problems) == 1 and problems[0].startswith("numbers scrolls sideways: its 2×12 cells need")
    assert problems[0].endswith(f"({short} px short)")
    resize_panel(table, 12 * table.cell_size().width() + 200, 200)
    settle(lambda: table.horizontalScrollBar().maximum() == 0)
    assert sideways_tables(table.panel) == []


def test_the_cut_rule_finds_a_table_too_short_and_spares_one_that_fits(qtbot):
    """fit_helpers.cut_tables (the presentation walk's rule) is not vacuous: a table whose rows do
    not all fit its height is reported, with how many rows are whole and how many px it lacks;
    given the room, not."""
    from tests.app.fit_helpers import cut_tables
    table = table_of(qtbot, 20, 2, 400, 200)
    settle(lambda: table.verticalScrollBar().maximum() > 0)
    problems = cut_tables(table.panel)
    short = table.verticalHeader().length() - table.viewport().height()
    whole = table.viewport().height() // table.rowHeight(0)
    assert short > 0 and len(problems) == 1, problems
    assert problems[0].startswith(f"numbers scrolls down: {whole} of its 20×2 rows are whole")
    assert problems[0].endswith(f"({short} px short)")
    resize_panel(table, 400, table.content_height() + 40)
    settle(lambda: table.verticalScrollBar().maximum() == 0)
    assert cut_tables(table.panel) == []
