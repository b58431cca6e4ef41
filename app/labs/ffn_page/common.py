"""What the FFN page's parts share: sizes, colours, and small label, table and plot helpers."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QMargins, QSize, Qt
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from app.widgets.style import font, quiet_plot
from core.numbers import format_number

TEXT_PT = 11
HEADING_PT = 13
FORMULA_PT = 17
EDGE_PT = 10
TICK_PT = 10
ROW_DECIMALS = 3            # vectors in the shuffle tables: short enough for two tables side by side
# Okabe–Ito: told apart with the common colour-vision deficiencies.
KIND_COLOURS = {"input": "#0072B2", "parameter": "#E69F00", "output": "#009E73", "intermediate": "#999999"}
NOTE_MARGINS = (10, 8, 10, 8)   # a note frame's, at the desk
LINE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")


def text_label(object_name: str = "", points: float = TEXT_PT, bold: bool = False, rich: bool = False) -> QLabel:
    label = QLabel()
    if object_name:
        label.setObjectName(object_name)
    label.setWordWrap(True)
    label.setFont(font(points, bold))
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def note_frame(*widgets: QWidget, object_name: str = "") -> QFrame:
    frame = QFrame()
    if object_name:
        frame.setObjectName(object_name)
    frame.setFrameShape(QFrame.Shape.StyledPanel)
    frame.setStyleSheet("QFrame { background: #f6f6f2; border-radius: 6px; }")
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(*NOTE_MARGINS)
    for widget in widgets:
        layout.addWidget(widget)
    return frame


def tighten(layout, presenting: bool, margins: tuple[int, int, int, int] = (6, 2, 6, 2), spacing: int = 2,
            roomy: tuple[int, int, int, int] = (-1, -1, -1, -1)) -> None:
    """Presenting, a part's rows stand closer (a 1024×768 projector at 150 % zoom has little height
    below the tab bar); at the desk the layout's own margins (`roomy`; −1: the style's) and the
    style's spacing come back."""
    layout.setContentsMargins(QMargins(*(margins if presenting else roomy)))
    layout.setSpacing(spacing if presenting else -1)


def show_if_room(page: QWidget, layout, optional: QWidget, text_width: int, spacing: int,
                 room_needed=lambda left: left >= 0) -> None:
    """Presenting, show `optional` (a text of `page`, in `layout`'s column) only when
    `room_needed(left)` holds for the height `left` over in the page's scroll area with it shown;
    at the desk always. Worked out as if it were shown (its height at `text_width`, and `spacing`
    above it), so showing or hiding it never changes the answer."""
    from app.widgets.appearance import appearance
    viewport = page.parentWidget()
    shown = optional.isVisibleTo(page)
    if not appearance().presenting or viewport is None:
        if not shown:
            optional.setVisible(True)
        return
    layout.activate()
    total = layout.totalHeightForWidth(viewport.width())
    if not shown:
        total += optional.heightForWidth(max(1, text_width)) + max(0, spacing)
    fits = room_needed(viewport.height() - total)
    if fits != shown:
        optional.setVisible(fits)


def shape_text(shape: tuple[int, ...]) -> str:
    return "×".join(f"{n:,}" for n in shape)


def row_text(values: np.ndarray, decimals: int = ROW_DECIMALS) -> str:
    return "  ".join(format_number(float(v), decimals) for v in values)


def vector_text(values: np.ndarray, decimals: int = ROW_DECIMALS) -> str:
    """Numbers padded to one width, for a fixed-width font: digits line up row under row."""
    return " ".join(format_number(float(v), decimals).rjust(decimals + 3) for v in values)


def snapped_range(values: np.ndarray) -> tuple[float, float]:
    """A y range around the values, widened to whole steps so that small edits keep it (no re-layout)."""
    low, high = float(np.min(values)), float(np.max(values))
    span = max(high - low, 0.1)
    step = 10 ** np.floor(np.log10(span)) / 2
    return float(np.floor(low / step - 0.25) * step), float(np.ceil(high / step + 0.25) * step)


def mono_font() -> QFont:
    """The fixed-width font at EDGE_PT, at the current zoom (and presentation mode)."""
    from app.widgets.appearance import appearance
    from app.widgets.style import with_chinese_fallback
    font = with_chinese_fallback(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    font.setPointSizeF(appearance().points(EDGE_PT))
    return font


class PlotWidget(pg.PlotWidget):
    """A plot that takes the height its page gives it. A scroll area makes its page as tall as the
    page's preferred height: the plot prefers its least height, so a projector's page scrolls only
    when even that does not fit (the plot's stretch gives it any room left). `height`: the plot's
    height when there is room, 40 px more than its least."""

    def __init__(self, object_name: str, height: int):
        super().__init__()
        self.setObjectName(object_name)
        self.setMinimumHeight(height - 40)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, self.minimumHeight())


def new_plot(widget: pg.PlotWidget) -> pg.PlotItem:
    return quiet_plot(widget.getPlotItem(), TICK_PT)


class Part(QWidget):
    """A tab page; retranslates itself when the language changes."""

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        raise NotImplementedError
