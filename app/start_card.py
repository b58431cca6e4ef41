"""The start card: on a start in free exploration, three things to try, until dismissed.

It floats over the top of the work area, just below the lesson bar, so that showing it moves
no panel and needs no room of its own at 1024×768. Closing it hides it until the next start;
"Don't show this again" is remembered with QSettings (key `startCard/hidden`, in Block Lab's
settings); Help → Getting started shows it again. Only the GUI's start offers it (app.launch.run_gui,
not with --present); screenshots and tests never see it unless they ask, and presentation mode
hides it. Its colours and text size follow appearance() (theme, zoom).
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QCheckBox, QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.widgets.appearance import appearance, settings

SETTINGS_KEY = "startCard/hidden"


def start_card_wanted() -> bool:
    """Whether the learner has not asked to stop seeing the card."""
    value = settings().value(SETTINGS_KEY, False)
    return not (value is True or str(value).lower() in ("true", "1"))


class StartCard(QFrame):
    """What to try first: open a lesson, edit a weight, what the MSE compares against."""

    openLesson = Signal()          # "Open the first lesson"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("startCard")
        self.setFrameShape(QFrame.Shape.Box)
        self.setAutoFillBackground(True)
        self._anchor: QWidget | None = None
        self._area: QWidget | None = None
        self.heading = QLabel()
        self.heading.setObjectName("startCardHeading")
        self.body = QLabel()
        self.body.setObjectName("startCardText")
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.open_button = QPushButton()
        self.open_button.setObjectName("startCardOpenLesson")
        self.open_button.clicked.connect(self.openLesson)
        self.never = QCheckBox()
        self.never.setObjectName("startCardNever")
        self.close_button = QPushButton()
        self.close_button.setObjectName("startCardClose")
        self.close_button.clicked.connect(self.dismiss)
        for button in (self.open_button, self.close_button, self.never):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)     # arrows and Space keep their lesson meaning

        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.close_button)
        bottom = QHBoxLayout()
        bottom.addWidget(self.open_button)
        bottom.addStretch(1)
        bottom.addWidget(self.never)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.body)
        layout.addLayout(bottom)
        self.hide()
        appearance().changed.connect(self._restyle)
        self._restyle()
        self.retranslate()

    def _restyle(self) -> None:
        """The theme's colours (palettes, not a style sheet, so the buttons follow the zoom) and
        a heading a little larger than the text."""
        colours = appearance().colours
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, QColor(colours.caption_background))
        palette.setColor(QPalette.ColorRole.WindowText, QColor(colours.foreground))
        self.setPalette(palette)
        font = self.heading.font()
        font.setBold(True)
        font.setPointSizeF(appearance().points(11))
        self.heading.setFont(font)
        if self.isVisible():
            self._place()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Where to start"))
        items = [
            self.tr("<b>Open a lesson</b>: pick one in the list above or in the Lessons menu; it walks through "
                    "the block step by step (PageDown / PageUp, as with a presentation clicker)."),
            self.tr("<b>Edit a weight</b>: click a cell under “Weights and inputs” on the right and type a number, "
                    "or drag the slider below the table. Every view follows at once; Ctrl+Z undoes it."),
            self.tr("<b>MSE</b> (bottom right) compares the block's output with the scenario's targets: "
                    "0 means they agree exactly. Edit → “Use the current output as target” sets it to 0."),
        ]
        self.body.setText("<ul style='margin-left: -20px'>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>")
        self.open_button.setText(self.tr("Open the first lesson"))
        self.never.setText(self.tr("Don't show this again"))
        self.close_button.setText(self.tr("Close"))
        self.close_button.setToolTip(self.tr("Hide this card (Help → Getting started shows it again)"))

    # --- floating below the lesson bar ------------------------------------------------------
    def float_below(self, anchor: QWidget, window: QWidget, area: QWidget | None = None) -> None:
        """Float over `window`, just below `anchor` (the lesson bar), no wider than `area` (the
        work area, so that the panels beside it stay in view), following all three."""
        self._anchor, self._area = anchor, area
        self.setParent(window)
        self.hide()
        for watched in (window, anchor, area):
            if watched is not None:
                watched.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Move, QEvent.Type.Show, QEvent.Type.LayoutRequest):
            self._place()
        return False

    def _place(self) -> None:
        anchor, window = self._anchor, self.parentWidget()
        if anchor is None or window is None:
            return
        corner = anchor.mapTo(window, QPoint(0, anchor.height()))
        room = self._area.width() if self._area is not None and self._area.width() > 0 else window.width()
        width = max(280, min(760, room - 2 * 12))
        self.resize(width, self.heightForWidth(width) if self.hasHeightForWidth() else self.sizeHint().height())
        self.move(corner.x() + 12, corner.y() + 8)
        self.raise_()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self._place()

    def offer(self) -> None:
        """Show the card unless the learner asked never to see it again."""
        if start_card_wanted():
            self.show()

    def dismiss(self) -> None:
        """Hide the card; with "Don't show this again" ticked, for good."""
        if self.never.isChecked():
            settings().setValue(SETTINGS_KEY, True)
        self.hide()

    def show_again(self) -> None:
        """Help → Getting started: show it now, and on later starts too."""
        settings().setValue(SETTINGS_KEY, False)
        self.never.setChecked(False)
        self.show()
