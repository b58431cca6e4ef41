"""Exporting a plot: PlotsPanel.export_current(path) (what File → Export calls) and the figures'
right-click menu write valid PNG and SVG files of the figure on screen; a refusal writes nothing
and says why in one sentence."""
from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest
from PySide6.QtCore import QCoreApplication, QPoint
from PySide6.QtGui import QContextMenuEvent, QImage
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from tests.app.helpers import make_session, show

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def panel(qtbot):
    from app.explorer.plots import PlotsPanel
    widget = show(qtbot, PlotsPanel(make_session()), 520, 380)
    yield widget
    widget.close()


def turns(count: int = 5) -> None:
    for _ in range(count):
        QCoreApplication.processEvents()


@pytest.mark.parametrize("tab", ["attention", "hidden", "residual", "activation", "mse"])
def test_every_tab_exports_png_and_svg(panel, tab, tmp_path):
    panel.show_tab(tab)
    turns()
    png = panel.export_current(tmp_path / f"{tab}.png")
    image = QImage(str(png))
    assert not image.isNull()
    graphics = panel.currentWidget().graphics
    assert image.width() >= graphics.width() and image.height() >= graphics.height() * 0.9   # at least on-screen size
    assert len({image.pixel(x, y) for x in range(0, image.width(), 17) for y in range(0, image.height(), 17)}) > 8

    svg = panel.export_current(tmp_path / f"{tab}.svg")
    root = ElementTree.parse(svg).getroot()                                   # well-formed XML …
    assert root.tag == f"{SVG}svg"                                            # … an SVG document
    assert any(element.tag in (f"{SVG}path", f"{SVG}polyline", f"{SVG}image", f"{SVG}rect")
               for element in root.iter())                                   # with something drawn


def test_a_heatmap_svg_embeds_the_image_and_the_texts(panel, tmp_path):
    panel.show_tab("attention")
    turns()
    svg = (panel.export_current(tmp_path / "attention.svg")).read_text(encoding="utf-8")
    assert "<image" in svg                                                    # the pattern itself
    assert "0.31" in svg and "小明" in svg                                      # cell numbers and token labels


def test_refusals_write_nothing_and_say_why(panel, tmp_path):
    from app.explorer.plots import ExportError
    with pytest.raises(ExportError, match="PNG or SVG"):
        panel.export_current(tmp_path / "figure.jpg")
    assert not (tmp_path / "figure.jpg").exists()
    with pytest.raises(ExportError, match="Could not write"):
        panel.export_current(tmp_path / "no-such-folder" / "figure.png")


def test_no_figure_no_export(qtbot, tmp_path):
    from app.explorer.plots import ExportError, PlotsPanel
    session = make_session("r45-ffn.json")           # no targets: the MSE tab shows a message
    panel = show(qtbot, PlotsPanel(session), 520, 380)
    panel.show_tab("mse")
    with pytest.raises(ExportError, match="no figure"):
        panel.export_current(tmp_path / "mse.png")
    assert list(tmp_path.iterdir()) == []
    panel.close()


def test_the_right_click_menu_exports(panel, tmp_path, monkeypatch):
    panel.show_tab("hidden")
    turns()
    viewport = panel.hidden_tab.graphics.viewport()
    QApplication.sendEvent(viewport, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, QPoint(40, 40),
                                                       viewport.mapToGlobal(QPoint(40, 40))))
    menu = panel.context_menu
    assert menu is not None and menu.isVisible()
    actions = {action.objectName(): action for action in menu.actions()}
    assert set(actions) == {"plotsExportPNG", "plotsExportSVG"}
    asked = []

    def save_file_name(parent, caption, directory, filters):
        asked.append((directory, filters))
        return str(tmp_path / "hidden-units"), filters               # the user typed no suffix

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_file_name))
    menu.hide()
    actions["plotsExportSVG"].trigger()
    assert (tmp_path / "hidden-units.svg").exists()
    assert asked[0][0].endswith("blocklab-hidden.svg") and "*.svg" in asked[0][1]


def test_a_failed_export_from_the_menu_is_one_message(panel, tmp_path, monkeypatch):
    messages = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *args: (str(tmp_path / "missing" / "plot.png"), "")))
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text: messages.append(text)))
    assert panel.export_with_dialog("png") is None
    assert len(messages) == 1 and "Could not write" in messages[0]
