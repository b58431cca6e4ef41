"""Issue 13: an edit in the C4 two-neuron lab repaints the drawing, not the eight weight spin
boxes whose values did not change — and the screen still shows what a fresh paint shows."""
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QWidget

from app.labs.xor import XorLabPanel
from app.session import Session
from core.formats.scenario import load_scenario
from tests.conftest import SCENARIOS


class Paints(QObject):
    def __init__(self, widgets):
        super().__init__()
        self.painted: list[str] = []
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.painted.append(watched.objectName())
        return False


def settle():
    app = QApplication.instance()
    for _ in range(4):
        app.processEvents()


def test_an_edit_repaints_the_diagram_and_the_edited_spin_only(qtbot):
    session = Session(load_scenario(SCENARIOS / "c4-xor.json"))
    panel = XorLabPanel(session)
    qtbot.addWidget(panel)
    panel.resize(880, 650)
    panel.set_focus("ffn")
    panel.show()
    qtbot.waitExposed(panel)
    settle()
    diagram = panel.findChild(QWidget, "xorDiagram")
    spins = [s for s in diagram.findChildren(QDoubleSpinBox) if s.objectName().startswith("xor")]
    assert len(spins) == 9 and all(s.isVisible() for s in spins)
    edited = panel.findChild(QDoubleSpinBox, "xorW_in_1_0")
    paints = Paints([diagram] + spins)
    for value in (0.5, -1.25, 2.0):
        paints.painted.clear()
        edited.setValue(value)
        settle()
        assert session.tensor("W_in")[1, 0] == value
        assert "xorDiagram" in paints.painted
        assert {name for name in paints.painted if name != "xorDiagram"} == {"xorW_in_1_0"}
        # what is on the screen (the backing store) is what a whole new paint draws
        shown = panel.screen().grabWindow(panel.winId()).toImage().convertToFormat(QImage.Format.Format_RGB32)
        fresh = panel.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        assert shown == fresh
    # an edit elsewhere (the Session) repaints the drawing and no spin box whose value stayed
    paints.painted.clear()
    session.set_value("b_out", (0,), 0.75)
    settle()
    assert "xorDiagram" in paints.painted
    assert {name for name in paints.painted if name != "xorDiagram"} == {"xorB_out"}
