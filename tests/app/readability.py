"""Walking a window's geometry to measure its text: size, overlap, cut off.

`walk_window(window, where)` returns a Finding for every visible text that is smaller than
MIN_PIXELS, overlaps a sibling, or does not fit its room; `open_presenting(app, config, lesson)`
opens a window in a configuration (size, zoom, language) in presentation mode. The walk of every
step of every shipped lesson, shared with the lab-fit checks, is tests/app/present_walk.py;
tests/app/test_readability.py reports what it found.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QAbstractListModel, QEvent, QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QFont, QFontInfo, QFontMetricsF, QTextDocument, QTextFormat
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import (QAbstractButton, QAbstractGraphicsShapeItem, QAbstractItemView, QAbstractScrollArea,
                               QCheckBox, QComboBox, QGraphicsItem, QGraphicsSimpleTextItem,
                               QGraphicsTextItem, QGraphicsView, QGroupBox, QHeaderView, QLabel, QLineEdit, QMenu,
                               QPlainTextEdit, QPushButton, QRadioButton, QStatusBar, QStyle, QStyleOptionButton,
                               QStyleOptionComboBox, QTabBar, QTableView, QTextEdit, QToolButton, QWidget)


MIN_PIXELS = 16.0          # "at least as large as 16 px text"
SLACK = 1.0                # pixels of rounding allowed when comparing a text with its room
AREAS = ("caption", "window", "diagram", "plots", "panels", "labs")


@dataclass(frozen=True)
class Config:
    width: int
    height: int
    zoom: float
    language: str

    @property
    def name(self) -> str:
        return f"{self.width}×{self.height} {round(self.zoom * 100)} % {self.language}"


CONFIGS = (Config(1024, 768, 1.0, "zh"), Config(1024, 768, 1.0, "en"),
           Config(1920, 1080, 1.5, "zh"), Config(1920, 1080, 1.5, "en"))


@dataclass(frozen=True)
class Finding:
    area: str
    where: str             # configuration and lesson step
    what: str              # the widget or item
    problem: str

    def __str__(self) -> str:
        return f"  [{self.where}] {self.what}: {self.problem}"


# --- where a widget belongs ----------------------------------------------------------------------
def area_of(widget: QWidget, window) -> str:
    from app.labs.base import LabPanel
    current = widget
    while current is not None and current is not window:
        name = current.objectName()
        if name == "dataflowView":
            return "diagram"
        if name == "plotsPanel":
            return "plots"
        if name in ("inspector", "weightEditor", "configPanel", "invariantsPanel"):
            return "panels"
        if isinstance(current, LabPanel):
            return "labs"
        if name == "lessonBar":
            return "caption"
        current = current.parentWidget()
    return "window"


def describe(widget: QWidget) -> str:
    name = widget.objectName() or "(no name)"
    parent = widget.parentWidget()
    while not widget.objectName() and parent is not None and not parent.objectName():
        parent = parent.parentWidget()
    inside = f" in {parent.objectName()}" if not widget.objectName() and parent is not None else ""
    return f"{name} [{type(widget).__name__}]{inside}"


# --- measuring -----------------------------------------------------------------------------------
def font_pixels(font: QFont, dpi: float = 96.0) -> float:
    """The height of a font's em in device pixels."""
    if font.pixelSize() > 0:
        return float(font.pixelSize())
    return font.pointSizeF() * dpi / 72.0


def widget_pixels(widget: QWidget) -> float:
    return float(QFontInfo(widget.font()).pixelSize())


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _is_rich(label: QLabel) -> bool:
    return label.textFormat() == Qt.RichText or (label.textFormat() == Qt.AutoText and GuiQt.mightBeRichText(label.text()))


def _text_of(widget: QWidget) -> str:
    """The text a widget shows (empty: none to measure)."""
    if isinstance(widget, QLabel):
        if not widget.text():
            return ""
        if _is_rich(widget):
            document = QTextDocument()
            document.setHtml(widget.text())
            return document.toPlainText().strip()
        return widget.text()
    if isinstance(widget, QAbstractButton):
        return _plain(widget.text())
    if isinstance(widget, QComboBox):
        return widget.currentText()
    if isinstance(widget, QGroupBox):
        return _plain(widget.title())
    if isinstance(widget, QLineEdit):
        return widget.text() or widget.placeholderText()
    if isinstance(widget, (QTextEdit, QPlainTextEdit)):
        return widget.toPlainText()
    if isinstance(widget, QTabBar):
        return " ".join(widget.tabText(i) for i in range(widget.count()))
    if isinstance(widget, QStatusBar):
        return widget.currentMessage()
    return ""


def _cut_off(widget: QWidget) -> str | None:
    """Why the widget's text does not fit its room, or None."""
    metrics = QFontMetricsF(widget.font())
    text = _text_of(widget)
    if isinstance(widget, QLabel):
        full = getattr(widget, "full_text", None)       # a label that elides itself (tables.ElidedLabel)
        if callable(full) and full() and widget.text() != full():
            return f"elided to {widget.text()!r} in {widget.width()} px"
        room = widget.contentsRect()
        margin = widget.margin() * 2
        if widget.wordWrap():
            needed = widget.heightForWidth(widget.width())
            if needed > widget.height() + SLACK:
                return f"wrapped text needs {needed} px of height, has {widget.height()}"
            longest = widget.minimumSizeHint().width()
            if longest > widget.width() + SLACK:
                return f"a word needs {longest} px of width, has {widget.width()}"
            return None
        hint = widget.sizeHint()
        if hint.width() > widget.width() + SLACK:
            return f"text needs {hint.width()} px of width, has {widget.width()}"
        if metrics.height() > room.height() - margin + SLACK:
            return f"text needs {metrics.height():.0f} px of height, has {room.height()}"
        return None
    if isinstance(widget, QAbstractButton) and text:
        width = metrics.horizontalAdvance(text)
        room = _button_room(widget)
        if width > room.width() + SLACK:
            return f"{text!r} needs {width:.0f} px, the button has {room.width()}"
        if metrics.height() > room.height() + 2 * SLACK + 2:
            return f"{text!r} needs {metrics.height():.0f} px of height, the button has {room.height()}"
        return None
    if isinstance(widget, QComboBox) and text:
        option = QStyleOptionComboBox()
        widget.initStyleOption(option)
        room = widget.style().subControlRect(QStyle.CC_ComboBox, option, QStyle.SC_ComboBoxEditField, widget)
        width = metrics.horizontalAdvance(text) + (widget.iconSize().width() + 4 if widget.itemIcon(widget.currentIndex()).availableSizes() else 0)
        if width > room.width() + SLACK:
            return f"{text!r} needs {width:.0f} px, the field has {room.width()}"
        return None
    if isinstance(widget, QGroupBox) and text:
        width = metrics.horizontalAdvance(text)
        if width > widget.width() - 8:
            return f"title {text!r} needs {width:.0f} px, the box has {widget.width()}"
        return None
    if isinstance(widget, QLineEdit) and text:
        width = metrics.horizontalAdvance(text)
        room = widget.contentsRect().width() - 4
        if width > room + SLACK:
            return f"{text!r} needs {width:.0f} px, the field has {room}"
        return None
    if isinstance(widget, (QTextEdit, QPlainTextEdit)) and text:
        for bar in (widget.verticalScrollBar(), widget.horizontalScrollBar()):
            if bar.maximum() > 0:
                return "the text does not fit: it scrolls"
        return None
    if isinstance(widget, QTabBar):
        if any(button.isVisible() for button in widget.findChildren(QToolButton)):
            return "the tabs do not fit: some are behind the scroll buttons"
        for index in range(widget.count()):
            rect = widget.tabRect(index)
            if not widget.isTabVisible(index):
                continue
            if not widget.rect().contains(rect):
                return f"tab {widget.tabText(index)!r} is outside the tab bar"
            width = metrics.horizontalAdvance(_plain(widget.tabText(index)))
            if width > rect.width() - 8 + SLACK:
                return f"tab {widget.tabText(index)!r} needs {width:.0f} px, has {rect.width()}"
        return None
    if isinstance(widget, QStatusBar) and text:
        width = metrics.horizontalAdvance(text)
        if width > widget.width() - 8:
            return f"message needs {width:.0f} px, the status bar has {widget.width()}"
    return None


def _button_room(button: QAbstractButton) -> QRect:
    style = button.style()
    if isinstance(button, (QPushButton, QCheckBox, QRadioButton)):
        option = QStyleOptionButton()
        button.initStyleOption(option)
        element = {QPushButton: QStyle.SE_PushButtonContents, QCheckBox: QStyle.SE_CheckBoxContents,
                   QRadioButton: QStyle.SE_RadioButtonContents}[next(k for k in (QPushButton, QCheckBox, QRadioButton)
                                                                  if isinstance(button, k))]
        room = style.subElementRect(element, option, button)
        if isinstance(button, QPushButton) and not button.icon().isNull():
            room.setWidth(room.width() - button.iconSize().width() - 4)
        return room
    return button.rect().adjusted(3, 3, -3, -3)


def _on_screen(widget: QWidget, window: QWidget, stop_at_scrolling: bool = False) -> QRect:
    """The part of the widget (in window coordinates) its ancestors and the window leave visible.
    `stop_at_scrolling`: stop at a scroll area's viewport (what it hides is scrolled away)."""
    shown = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        if stop_at_scrolling and isinstance(parent.parentWidget(), QAbstractScrollArea) \
                and parent is parent.parentWidget().viewport():
            return shown                          # the rest is scrolled away (even past the window's edge)
        shown = shown.intersected(QRect(parent.mapTo(window, QPoint(0, 0)), parent.size()))
        parent = parent.parentWidget()
    return shown.intersected(window.rect())


def _clipped(widget: QWidget, window: QWidget) -> str | None:
    """Whether an ancestor (or the window's edge) hides part of the widget. Inside a scroll
    area a partly hidden widget is scrolled, not cut off."""
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    shown = _on_screen(widget, window, stop_at_scrolling=True)
    if shown.isEmpty() or shown == rect:
        return None
    return f"only {shown.width()}×{shown.height()} of its {rect.width()}×{rect.height()} px are on screen"


def _shows_text(widget: QWidget) -> bool:
    return bool(_text_of(widget).strip())


def _menus(window) -> list[QMenu]:
    found = []

    def walk(actions):
        for action in actions:
            if action.menu() is not None:
                found.append(action.menu())
                walk(action.menu().actions())

    if hasattr(window, "menuBar"):
        walk(window.menuBar().actions())
    return found


def walk_window(window, where: str, seen: Counter | None = None) -> list[Finding]:
    """Every readability problem of the window as it is on screen now."""
    findings: list[Finding] = []
    seen = seen if seen is not None else Counter()
    texts: list[QWidget] = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or widget.objectName() == "blankScreen" or isinstance(widget, QMenu):
            continue
        if _on_screen(widget, window).isEmpty():
            continue                              # scrolled away or clipped away entirely
        area = area_of(widget, window)
        if isinstance(widget, QGraphicsView) and widget.scene() is not None:
            findings += _walk_scene(widget, area, where, seen)
        if isinstance(widget, QAbstractItemView) and not isinstance(widget, QHeaderView):
            findings += _walk_cells(widget, area, where, seen)
        if not _shows_text(widget):
            continue
        texts.append(widget)
        seen[area] += 1
        pixels = widget_pixels(widget)
        if pixels < MIN_PIXELS:
            findings.append(Finding(area, where, describe(widget), f"{pixels:.0f} px text: {_short(_text_of(widget))}"))
        problem = _cut_off(widget) or _clipped(widget, window)
        if problem:
            findings.append(Finding(area, where, describe(widget), f"cut off: {problem}: {_short(_text_of(widget))}"))
    findings += _overlaps(texts, window, where)
    for menu in _menus(window):
        seen["window"] += 1
        pixels = widget_pixels(menu)
        if pixels < MIN_PIXELS:
            findings.append(Finding("window", where, f"menu {_plain(menu.title())!r}", f"{pixels:.0f} px text"))
    return findings


def _short(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 40 else text[:39] + "…")


def _overlaps(texts: list[QWidget], window, where: str) -> list[Finding]:
    """Text widgets that overlap a visible sibling (anything drawn in the same parent)."""
    findings = []
    reported = set()
    for widget in texts:
        parent = widget.parentWidget()
        if parent is None:
            continue
        for other in parent.findChildren(QWidget, options=Qt.FindDirectChildrenOnly):
            if other is widget or not other.isVisible() or other.isWindow() or other.objectName() == "blankScreen":
                continue
            if isinstance(parent, QAbstractScrollArea) or isinstance(parent, QTabBar):
                continue                           # scroll bars, viewports and scroll buttons are laid out by Qt
            common = widget.geometry().intersected(other.geometry())
            if common.width() > 2 and common.height() > 2:
                key = frozenset((id(widget), id(other)))
                if key in reported:
                    continue
                reported.add(key)
                findings.append(Finding(area_of(widget, window), where, describe(widget),
                                        f"overlaps {describe(other)} by {common.width()}×{common.height()} px"))
    return findings


def _walk_cells(view: QAbstractItemView, area: str, where: str, seen: Counter) -> list[Finding]:
    """A table's visible cells and headers: their font, and that each text fits its cell."""
    findings = []
    model = view.model()
    if model is None:
        return findings
    viewport = view.viewport().rect()
    metrics = QFontMetricsF(view.font())
    pixels = widget_pixels(view)
    small = cut = 0
    example = ""
    for row in range(min(model.rowCount(), 64)):
        for column in range(1 if isinstance(model, QAbstractListModel) else min(model.columnCount(), 64)):
            index = model.index(row, column)
            rect = view.visualRect(index)
            if rect.isEmpty() or not viewport.intersects(rect):
                continue
            text = model.data(index, Qt.DisplayRole)
            if text is None or str(text) == "":
                continue
            seen[area] += 1
            font = model.data(index, Qt.FontRole)
            cell_pixels = font_pixels(font) if isinstance(font, QFont) else pixels
            cell_metrics = QFontMetricsF(font) if isinstance(font, QFont) else metrics
            if cell_pixels < MIN_PIXELS:
                small += 1
                example = example or f"{cell_pixels:.0f} px in cell ({row}, {column}) {_short(str(text))}"
            lines = str(text).split("\n")                # a cell of several lines needs its widest
            width = max(cell_metrics.horizontalAdvance(line) for line in lines)
            if len(lines) > 1 and cell_metrics.lineSpacing() * len(lines) > rect.height() + SLACK:
                cut += 1
                example = example or f"cell ({row}, {column}) {_short(str(text))} needs {len(lines)} lines, " \
                                     f"{rect.height()} px tall"
            elif width > rect.width() - 4 + SLACK or not viewport.contains(rect):
                cut += 1
                example = example or f"cell ({row}, {column}) {_short(str(text))} needs {width:.0f} px, " \
                                     f"{rect.width()} px wide, {'inside' if viewport.contains(rect) else 'partly outside'} the view"
    if isinstance(view, QTableView):
        for header in (view.horizontalHeader(), view.verticalHeader()):
            if header.isVisible() and widget_pixels(header) < MIN_PIXELS:
                small += 1
                example = example or f"header {widget_pixels(header):.0f} px"
    if small:
        findings.append(Finding(area, where, describe(view), f"{small} cells smaller than {MIN_PIXELS:.0f} px ({example})"))
    if cut:
        findings.append(Finding(area, where, describe(view), f"{cut} cells cut off ({example})"))
    return findings


# --- graphics scenes -----------------------------------------------------------------------------
def _document_pixels(item: QGraphicsTextItem, dpi: float) -> float:
    """The smallest font of a rich text item's non-blank text."""
    document = item.document()
    smallest = None
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.isValid() and fragment.text().strip():
                fmt = fragment.charFormat()
                if fmt.hasProperty(QTextFormat.FontPixelSize):
                    size = float(fmt.intProperty(QTextFormat.FontPixelSize))
                elif fmt.hasProperty(QTextFormat.FontPointSize):
                    size = fmt.doubleProperty(QTextFormat.FontPointSize) * dpi / 72.0
                else:
                    size = font_pixels(document.defaultFont(), dpi)
                smallest = size if smallest is None else min(smallest, size)
            iterator += 1
        block = block.next()
    return smallest if smallest is not None else font_pixels(document.defaultFont(), dpi)


def _item_scale(item: QGraphicsItem, view: QGraphicsView) -> float:
    transform = item.deviceTransform(view.viewportTransform())
    return (abs(transform.m11() * transform.m22() - transform.m12() * transform.m21())) ** 0.5


def _item_name(item: QGraphicsItem, text: str) -> str:
    owner = item.parentItem()
    label = type(item).__name__
    if owner is not None:
        hook = getattr(owner, "hook", None)
        label += f" in {hook or type(owner).__name__}"
    return f"{label} {_short(text)}"


def _box_name(box: QGraphicsItem, text) -> str:
    owner = box
    while owner is not None and getattr(owner, "hook", None) is None:
        owner = owner.parentItem()
    text = text.text() if isinstance(text, QGraphicsSimpleTextItem) else text.toPlainText()
    return f"{type(box).__name__} of {owner.hook if owner is not None else _short(text)}"


def _walk_scene(view: QGraphicsView, area: str, where: str, seen: Counter) -> list[Finding]:
    import pyqtgraph as pg
    findings = []
    dpi = float(view.logicalDpiY())
    viewport = QRectF(view.viewport().rect())
    placed: dict[int, list[tuple[QRectF, str]]] = defaultdict(list)
    boxes: dict[int, tuple[QAbstractGraphicsShapeItem, str]] = {}
    name = describe(view)
    for item in view.scene().items():
        box = item.parentItem()
        if isinstance(item, (QGraphicsSimpleTextItem, QGraphicsTextItem)) and isinstance(box, QAbstractGraphicsShapeItem) \
                and box.zValue() >= 0:              # (below zero: a background region, which the edge may cut)
            boxes.setdefault(id(box), (box, f"{name}: {_box_name(box, item)}"))
        if not item.isVisible() or item.effectiveOpacity() < 0.05:
            continue
        if isinstance(item, pg.AxisItem):
            if item.style.get("showValues", True):
                font = item.style.get("tickFont") or item.font()
                pixels = font_pixels(font, dpi) * _item_scale(item, view)
                seen[area] += 1
                if pixels < MIN_PIXELS - 0.01:
                    findings.append(Finding(area, where, f"{name} axis {item.orientation}", f"{pixels:.1f} px tick labels"))
            continue
        if hasattr(item, "text_rects") and hasattr(item, "text_font"):     # a heatmap's cell numbers
            findings += _cell_numbers(view, item, area, where, seen, viewport, dpi)
            continue
        if isinstance(item, QGraphicsSimpleTextItem):
            text = item.text()
            pixels = font_pixels(item.font(), dpi)
        elif isinstance(item, QGraphicsTextItem):
            text = item.toPlainText()
            pixels = _document_pixels(item, dpi)
        else:
            continue
        if not text.strip():
            continue
        scale = _item_scale(item, view)
        shown = pixels * scale
        inner = item.boundingRect()
        if isinstance(item, QGraphicsTextItem):      # the glyphs, without the document's margin
            margin = item.document().documentMargin()
            inner = inner.adjusted(margin, margin, -margin, -margin)
        device = view.mapFromScene(item.mapToScene(inner)).boundingRect()
        device_rect = QRectF(device)
        if not device_rect.intersects(viewport):
            continue                                # scrolled out of view: not on screen
        seen[area] += 1
        what = f"{name}: {_item_name(item, text)}"
        findings += _shown_text(area, where, what, shown, device_rect, viewport)
        parent = item.parentItem()
        if parent is not None and parent.flags() & QGraphicsItem.ItemClipsChildrenToShape:
            if not parent.sceneBoundingRect().adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(item.sceneBoundingRect()):
                findings.append(Finding(area, where, what, "cut off by the item it sits in"))
        placed[id(parent)].append((item.sceneBoundingRect(), what))
    for box, what in boxes.values():                # a box that holds a text: on screen whole, or not at all
        rect = QRectF(view.mapFromScene(box.mapToScene(box.boundingRect())).boundingRect())   # with its border
        if box.isVisible() and box.effectiveOpacity() >= 0.05 and rect.intersects(viewport) \
                and not viewport.adjusted(-0.5, -0.5, 0.5, 0.5).contains(rect):
            findings.append(Finding(area, where, what, "its box is cut by the edge of the view"))
    for siblings in placed.values():
        findings += _scene_text_overlaps(siblings, area, where)
    return findings


def _shown_text(area: str, where: str, what: str, pixels: float, device_rect: QRectF,
                viewport: QRectF) -> list[Finding]:
    """A scene text on screen: too small to read, or cut off by the edge of its view."""
    findings = []
    if pixels < MIN_PIXELS - 0.01:
        findings.append(Finding(area, where, what, f"{pixels:.1f} px text"))
    if not viewport.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(device_rect):
        findings.append(Finding(area, where, what, "cut off by the edge of the view"))
    return findings


def _scene_text_overlaps(placed: list[tuple[QRectF, str]], area: str, where: str) -> list[Finding]:
    """Each pair of texts (their rects, their names) that share more than 2 × 2 px."""
    findings = []
    for i, (rect, what) in enumerate(placed):
        for other, other_what in placed[i + 1:]:
            common = rect.intersected(other)
            if common.width() > 2 and common.height() > 2:
                findings.append(Finding(area, where, what, f"overlaps {other_what}"))
    return findings


def _cell_numbers(view: QGraphicsView, item: QGraphicsItem, area: str, where: str, seen: Counter,
                  viewport: QRectF, dpi: float) -> list[Finding]:
    """A heatmap's NumbersItem: each number drawn in its font, unscaled by the plot (scaled by the
    view only), in its glyph box; none cut off by the view's edge, none over another."""
    findings = []
    name = describe(view)
    view_transform = view.viewportTransform()
    scale = abs(view_transform.m11() * view_transform.m22() - view_transform.m12() * view_transform.m21()) ** 0.5
    pixels = font_pixels(item.text_font, dpi) * scale
    placed: list[tuple[QRectF, str]] = []
    for text, rect in zip(item.texts, item.text_rects()):
        if not text.strip():
            continue
        device_rect = QRectF(view.mapFromScene(rect).boundingRect())
        if not device_rect.intersects(viewport):
            continue
        seen[area] += 1
        what = f"{name}: cell number {_short(text)}"
        findings += _shown_text(area, where, what, pixels, device_rect, viewport)
        placed.append((rect, what))
    return findings + _scene_text_overlaps(placed, area, where)


# --- a window presenting (tests/app/present_walk.py walks it) --------------------------------
def settle(app, turns: int = 2) -> None:
    for _ in range(turns):
        app.processEvents()


def open_presenting(app, config: Config, lesson_path: Path):
    """A window on `lesson_path` at the configuration's size, zoom and language, in presentation mode."""
    from app.launch import build_window
    from app.widgets.appearance import appearance
    _, window = build_window(lesson_path, config.language)
    appearance().set_zoom(config.zoom)
    window.resize(config.width, config.height)
    window.show()
    window.presentation.enter(full_screen=False)
    settle(app, 3)                                # the layout's new minimum, then the size
    window.resize(config.width, config.height)
    settle(app)
    return window


def close(window) -> None:
    from PySide6.QtCore import QCoreApplication
    from app.widgets.appearance import appearance
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    appearance().reset()
