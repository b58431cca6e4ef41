"""The tables in the space the window gives them: a lesson-size tensor (8 tokens) shows whole,
without scrolling, in the inspector and the weight editor, at 1024×768 in both languages and at
1920×1080 with the interface zoomed to 150 % (cells then at least as large as 16 px text);
and an accepted value clears a refusal from the status bar. One window, driven through all of it."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from core.formats.generate import random_scenario
from core.formats.scenario import save_scenario
from tests.app.helpers import settle

pytestmark = pytest.mark.window


def all_rows_shown(table) -> bool:
    rows = table.model().rowCount()
    return (not table.verticalScrollBar().isVisible()
            and table.rowViewportPosition(rows - 1) + table.rowHeight(rows - 1) <= table.viewport().height())


def test_a_lesson_tensor_shows_whole_at_projector_sizes(qtbot, tmp_path):
    from app import i18n
    from app.launch import build_window
    from app.widgets.appearance import appearance

    path = tmp_path / "eight.json"
    save_scenario(random_scenario(8, 4, 2, 2, 6), path)
    app, window = build_window(path, "zh")
    qtbot.addWidget(window)
    font = app.font()
    try:
        window.resize(1024, 768)
        window.show()
        qtbot.waitExposed(window)
        editor, inspector = window.weight_editor, window.inspector
        editor.tensor_combo.setCurrentIndex(editor.tensor_combo.findData("inputs"))      # 8 rows
        assert editor.model.rowCount() == inspector.model.rowCount() == 8
        for language in ("zh", "en"):
            i18n.install(language)
            settle(lambda: all_rows_shown(inspector.table) and all_rows_shown(editor.table))
        # The View menu's zoom scales the application font and appearance() together.
        window.resize(1920, 1080)
        zoomed = app.font()
        zoomed.setPointSizeF(font.pointSizeF() * 1.5)
        app.setFont(zoomed)
        appearance().set_zoom(1.5)
        settle(lambda: all_rows_shown(inspector.table) and all_rows_shown(editor.table))
        for table in (inspector.table, editor.table):
            assert table.fontInfo().pixelSize() >= 16
        # A refusal stands in the status bar until a value is accepted.
        assert not editor.model.setData(editor.model.index(0, 0), "abc")
        assert window.statusBar().currentMessage()
        assert editor.model.setData(editor.model.index(0, 0), "0.5")
        assert window.statusBar().currentMessage() == ""
    finally:
        appearance().set_zoom(1.0)
        app.setFont(font)
        i18n.install("en")
        window.close()
