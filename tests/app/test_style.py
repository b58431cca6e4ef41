"""The shared look: one rule for the ink of text on a tinted cell, used by every table."""
import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from app.widgets import style


def test_dark_ink_on_light_tints_white_on_the_darkest():
    assert style.text_colour_on(style.tint(0.0, 1.0)) == style.DARK_INK
    assert style.text_colour_on(QColor("#2d004b")) == style.LIGHT_INK          # the darkest purple
    assert style.text_colour_on(QColor("#ffffff")) == style.DARK_INK
    inks = style.text_colours_on_map(style.DIVERGING, np.array([0.0, 0.5, 1.0]))
    assert inks == [style.LIGHT_INK.name(), style.DARK_INK.name(), style.LIGHT_INK.name()]


def test_the_inspector_table_inks_its_cells_by_the_rule(qtbot):
    from app.explorer.inspector import Inspector
    from app.session import Session
    from core.formats.scenario import load_scenario
    from tests.conftest import SCENARIOS

    inspector = Inspector(Session(load_scenario(SCENARIOS / "block-default.json")))
    qtbot.addWidget(inspector)
    model = inspector.model
    for row in range(model.rowCount()):
        for column in range(model.columnCount()):
            index = model.index(row, column)
            assert index.data(Qt.ForegroundRole) == style.text_colour_on(index.data(Qt.BackgroundRole))
            assert "-" not in index.data(Qt.DisplayRole)        # the Unicode minus, as everywhere
