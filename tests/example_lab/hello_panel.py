"""The hello lab's panel: one part, "value", showing the selected hook's value."""
from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.labs.base import LabPanel
from app.session import Change
from core.numbers import format_number
from tests.example_lab import hello


class HelloValuePart(QLabel):
    """The selected hook, cell and value, in words."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("helloValue")
        self.session = session

    def refresh(self) -> None:
        s = self.session
        index = s.selected_index()
        value = hello.selected_value(s.trace, s.selected_hook, index)
        self.setText(self.tr("%1 at %2 is %3").replace("%1", s.selected_hook)
                     .replace("%2", str(list(index))).replace("%3", format_number(value)))


class HelloLabPanel(LabPanel):
    LAB_ID = "hello"                     # its line in the lab registry

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, parent)
        self.setObjectName("helloLab")
        self.add_part("value", HelloValuePart(session))
        self.set_part_title("value", self.tr("Value"))
        QVBoxLayout(self).addWidget(self.tabs)

    def session_changed(self, change: Change) -> None:
        # Called once per Session notification while the panel is on screen (all of them
        # together when it is shown after being hidden).
        if change & (Change.TRACE | Change.SELECTION):
            self.part("value").refresh()
