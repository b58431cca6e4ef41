"""Issue 13: an edit in the C4 two-neuron lab repaints the drawing from what it prepared before —
its texts laid out once, not by a drawText per text per paint — and the drawing is the one the
plain calls paint, pixel for pixel. Counted work, never time."""
import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QImage, QPainter, QRegion
from PySide6.QtWidgets import QApplication, QDoubleSpinBox

from app.labs.xor import XorLabPanel, diagram as drawing
from app.session import Session
from app.widgets.appearance import appearance
from core.formats.scenario import MAX_ABS_VALUE, load_scenario
from tests.app.helpers import count_calls
from tests.conftest import SCENARIOS

# of tools/bench.py's edits: small weights, and the spin's own range (texts wider than their boxes)
VALUES = (0.625, -1.375, 2.125, 0.3 * 2 * MAX_ABS_VALUE - MAX_ABS_VALUE, 0.2 * 2 * MAX_ABS_VALUE - MAX_ABS_VALUE)


def settle():
    for _ in range(4):
        QApplication.instance().processEvents()


def open_drawing(qtbot, size=(880, 650)):
    session = Session(load_scenario(SCENARIOS / "c4-xor.json"))
    panel = XorLabPanel(session)
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.set_focus("ffn")
    panel.show()
    qtbot.waitExposed(panel)
    settle()
    return session, panel, panel.part("ffn").diagram


def picture(widget) -> QImage:
    return widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


def test_an_edit_paints_the_drawings_texts_laid_out_before(qtbot, monkeypatch):
    session, panel, diagram = open_drawing(qtbot)
    spin = panel.findChild(QDoubleSpinBox, "xorW_in_0_0")
    for value in VALUES:                              # every text these edits show, laid out once
        spin.setValue(value)
        settle()
    texts = count_calls(monkeypatch, QPainter, "drawText")
    prepared = []
    plain_static = QPainter.drawStaticText
    monkeypatch.setattr(QPainter, "drawStaticText",
                        lambda painter, where, text: (prepared.append(text.text()), plain_static(painter, where, text)))
    layouts = count_calls(monkeypatch, drawing.QTextLayout, "beginLayout")
    for value in VALUES:
        prepared.clear()
        spin.setValue(value)
        settle()
        assert session.tensor("W_in")[0, 0] == value
        # 4 headers, 2 contributions, p, n, 2 × 2 lines of the neurons, 2 of ŷ, Σ: once each
        assert len(prepared) == 15
        assert diagram.texts["neuron0"][1] in prepared
    assert texts == [] and layouts == []


def counted_constructions(monkeypatch, name: str) -> list:
    """Every `name` (a Qt class the drawing's module uses) made from now on in that module."""
    made = []
    plain = getattr(drawing, name)

    class Counted(plain):
        def __init__(self, *args):
            made.append(args)
            super().__init__(*args)
    monkeypatch.setattr(drawing, name, Counted)
    return made


def test_an_edit_works_out_no_geometry_and_makes_no_pens(qtbot, monkeypatch):
    """The headers' and contributions' places (font metrics), the edges' ends, the region around
    the spins and the edges' pens are worked out when the geometry changes, not on every edit."""
    from tests.app.test_xor_diagram_paint import Paints
    session, panel, diagram = open_drawing(qtbot)
    spin = panel.findChild(QDoubleSpinBox, "xorW_in_0_0")
    for value in VALUES:
        spin.setValue(value)
        settle()
    metrics = counted_constructions(monkeypatch, "QFontMetricsF")
    pens = counted_constructions(monkeypatch, "QPen")
    headers = count_calls(monkeypatch, drawing.XorDiagram, "header_layout")
    contributions = count_calls(monkeypatch, drawing.XorDiagram, "contribution_rects")
    paints = Paints([diagram])
    for value in VALUES:
        paints.painted.clear()
        spin.setValue(value)
        settle()
        assert paints.painted == ["xorDiagram"]
    assert metrics == [] and pens == [] and headers == [] and contributions == []
    # a new geometry (the zoom, the spins grown with it): worked out again
    appearance().set_zoom(1.25)
    settle()
    assert headers and contributions and metrics


def plain_draw_centred(painter, rect, text, points, bold=False):
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)


@pytest.mark.parametrize("language, presenting", [("en", False), ("zh", False), ("zh", True), ("en", True)])
def test_the_drawing_is_the_one_drawtext_paints(qtbot, monkeypatch, language, presenting):
    """Where drawText(rect, AlignCenter, text) puts a text, clipped to its rect where it is wider
    (a neuron's "z = −100000 → GELU → …"): the same pixels, at 100 % and presenting at 150 %,
    in English and Chinese, after edits and after the zoom and the language change."""
    from app import i18n
    i18n.install(language)
    if presenting:
        appearance().set_zoom(1.5)
        appearance().set_presenting(True)
    session, panel, diagram = open_drawing(qtbot, (1010, 400) if presenting else (880, 650))
    spin = panel.findChild(QDoubleSpinBox, "xorW_in_0_0")

    def same_as_plain():
        prepared = picture(diagram)
        with monkeypatch.context() as patch:
            patch.setattr(drawing, "draw_centred", plain_draw_centred)
            plain = picture(diagram)
        assert prepared == plain
        # and what the kept geometry, texts and pens draw is what they draw made anew
        diagram._frame_cache = None
        drawing._laid_out.cache_clear()
        drawing._edge_pen.cache_clear()
        assert picture(diagram) == prepared

    same_as_plain()
    for value in VALUES[2:]:
        spin.setValue(value)
        settle()
        same_as_plain()
    appearance().set_zoom(1.25)
    settle()
    same_as_plain()
    panel.resize(panel.width() + 90, panel.height() + 40)
    settle()
    same_as_plain()
    i18n.install("en" if language == "zh" else "zh")
    settle()
    assert diagram.headers[1] == ("activation" if language == "zh" else "激活")
    same_as_plain()


def test_an_edit_repaints_the_drawing_not_the_page_behind_it(qtbot):
    """The drawing paints the window's colour behind itself and is opaque to Qt: an edit's repaint
    of it does not first repaint the FFN page and the scroll area's viewport under it — and the
    window shows the same pixels as when they did."""
    from PySide6.QtWidgets import QScrollArea

    from tests.app.test_xor_diagram_paint import Paints
    session, panel, diagram = open_drawing(qtbot)
    page = panel.part("ffn")
    viewport = panel.findChild(QScrollArea, "xorScroll_ffn").viewport()
    spin = panel.findChild(QDoubleSpinBox, "xorW_in_0_0")
    paints = Paints([diagram, page, viewport])
    for value in VALUES:
        paints.painted.clear()
        spin.setValue(value)
        settle()
        assert paints.painted == ["xorDiagram"]
    shown = panel.screen().grabWindow(panel.winId()).toImage()
    diagram.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, False)    # the page and viewport behind it
    panel.repaint()
    assert panel.screen().grabWindow(panel.winId()).toImage() == shown


class Regions(QObject):
    """The region of each paint event of `widget`."""

    def __init__(self, widget):
        super().__init__()
        self.regions: list = []
        widget.installEventFilter(self)

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.regions.append((QRegion(event.region()), watched.size()))
        return False

    def at(self, size) -> list:
        """The regions painted at `size` (a new size, from a new layout, repaints it all)."""
        return [region for region, painted_at in self.regions if painted_at == size]


def shown_and_fresh(panel):
    shown = panel.screen().grabWindow(panel.winId()).toImage().convertToFormat(QImage.Format.Format_RGB32)
    return shown, picture(panel)


@pytest.mark.parametrize("presenting", [False, True])
def test_an_edit_repaints_the_parts_of_the_drawing_it_changed(qtbot, presenting):
    """An edit repaints the edges whose pen changed, the boxes whose texts changed and the edited
    spin, not the headers or the edges it left as they were; and what the screen then shows is
    what a whole paint draws, pixel for pixel (every spin, a weight of 0 (dashed), a sign change,
    a weight beyond the pen's cap, the spin's range, another sentence, a session edit)."""
    if presenting:
        appearance().set_zoom(1.5)
        appearance().set_presenting(True)
    session, panel, diagram = open_drawing(qtbot, (1010, 420) if presenting else (880, 650))
    regions = Regions(diagram)
    headers = QRegion()
    for rect in diagram.header_rects():
        headers += rect.toAlignedRect()
    values = (0.0, -0.75, 1.5, 3.0, -MAX_ABS_VALUE, 0.25)
    for spin in diagram.spins.values():               # every text these edits show, laid out once
        for value in values:
            spin.setValue(value)
            settle()
        spin.setValue(0.5)
    settle()
    for name, spin in [(spin.objectName(), spin) for spin in diagram.spins.values()]:
        for value in values:
            regions.regions.clear()
            size = diagram.size()
            spin.setValue(value)
            settle()
            assert regions.regions, (name, value)
            if diagram.size() == size:                # (the spin's range: wider texts, a new layout)
                assert len(regions.at(size)) == 1, (name, value)
                assert not regions.at(size)[0].intersects(headers), (name, value)
            shown, fresh = shown_and_fresh(panel)
            assert shown == fresh, (name, value)
    for row in (1, 2, 3, 0):                          # another sentence: other texts, same edges
        session.select(token=row)
        settle()
        shown, fresh = shown_and_fresh(panel)
        assert shown == fresh, row
    regions.regions.clear()
    session.set_value("W_out", (1, 0), -2.5)          # from the Session (another view's edit)
    settle()
    assert len(regions.at(diagram.size())) == 1 and not regions.at(diagram.size())[0].intersects(headers)
    shown, fresh = shown_and_fresh(panel)
    assert shown == fresh
