"""The base of every lab panel: its parts as tabs, one subscription to the Session, and
catching up when shown.

A lab panel is built by the main window from the lab registry (core/labs) and shown in
place of the explorer's block view. `set_focus(part)` brings a part (tab) forward,
`current_part()` says which is on screen, `highlight(hooks)` points the explorer's views
at hooks through the Session. The panel hears `session.changed` once and hands the change
to `session_changed`; while the panel is hidden the changes are collected and handed over
together when it is shown again, so a hidden lab does no work on an edit.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QScrollArea, QTabWidget, QWidget

from app.labs.fonts import follow_fonts
from app.session import Change
from app.widgets.appearance import appearance
from app.widgets.wheel_guard import guard_scroll_area
from core.labs import get_lab

NO_CHANGE = Change(0)


class SidewaysAtTheDesk(QObject):
    """A part's page that scrolls only up and down while presenting (a projector needs the height a
    bar would take, and the parts are fitted to it) scrolls sideways too at the desk, where the
    part is wider than its page: at 150 % on 1024 px, beside the right-hand column, the
    generations' table, their preset page and the FFN formula were cut at the page's right edge
    with no way to reach the rest."""

    def __init__(self, page: QScrollArea):
        super().__init__(page)
        self.page = page
        appearance().changed.connect(self.follow)
        self.follow()

    def follow(self) -> None:
        policy = Qt.ScrollBarPolicy.ScrollBarAlwaysOff if appearance().presenting else Qt.ScrollBarPolicy.ScrollBarAsNeeded
        if self.page.horizontalScrollBarPolicy() != policy:
            self.page.setHorizontalScrollBarPolicy(policy)


class LabPanel(QWidget):
    """Subclasses set LAB_ID (their registry id), add their parts in the registry's order with
    `add_part`, and override `session_changed` (and `part_shown` if a part redraws on focus)."""

    LAB_ID = ""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.lab = get_lab(self.LAB_ID)
        self.tabs = QTabWidget()
        self._part_widgets: dict[str, QWidget] = {}
        self._pending = Change.ALL             # never drawn: draw everything when first shown
        self.tabs.currentChanged.connect(self._tab_changed)
        session.changed.connect(self.deliver)
        appearance().changed.connect(self._follow_appearance)
        self.setAccessibleName(self.title())

    def title(self) -> str:
        """The lab's title (the registry's, translated under the context "Labs")."""
        return QCoreApplication.translate("Labs", self.lab.title)

    # --- parts ----------------------------------------------------------------------------
    def add_part(self, name: str, widget: QWidget, page: QWidget | None = None) -> None:
        """Add the next part as a tab: `widget` is the part, `page` what the tab holds (default
        the widget itself, e.g. a scroll area around it). In a page that is a scroll area the wheel
        scrolls the page: a control in it takes the wheel only once the learner has clicked or tabbed
        into it (app/widgets/wheel_guard.py), so scrolling never moves a slider."""
        expected = self.lab.parts[len(self._part_widgets)] if len(self._part_widgets) < len(self.lab.parts) else None
        if name != expected:
            raise ValueError(f"lab {self.lab.id!r}: expected the part {expected!r} next, got {name!r}")
        self._part_widgets[name] = widget
        if isinstance(page, QScrollArea) and page.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff:
            SidewaysAtTheDesk(page)
        if isinstance(page, QScrollArea):
            guard_scroll_area(page)           # the wheel scrolls the page; a control takes it only with focus
        self.tabs.addTab(page if page is not None else widget, "")

    def parts(self) -> list[str]:
        return list(self.lab.parts)

    def part(self, name: str) -> QWidget:
        """The widget of one part."""
        self._check(name)
        return self._part_widgets[name]

    def set_part_title(self, name: str, title: str) -> None:
        self.tabs.setTabText(self.lab.parts.index(name), title)

    def set_focus(self, part: str) -> None:
        """Bring one part forward (a lesson step calls this after loading its scenario)."""
        self._check(part)
        self.tabs.setCurrentIndex(self.lab.parts.index(part))

    def current_part(self) -> str:
        return self.lab.parts[self.tabs.currentIndex()]

    def _check(self, part: str) -> None:
        if part not in self.lab.parts:
            raise ValueError(f"the lab {self.lab.id!r} has no part {part!r}; parts: {', '.join(self.lab.parts)}")

    # --- the Session ------------------------------------------------------------------------
    def highlight(self, hooks=(), cells=()) -> None:
        """Point the explorer's views at hooks (and (hook, index) cells) of the current trace."""
        trace = self.session.trace
        self.session.set_highlight([hook for hook in hooks if hook in trace],
                                   [(hook, index) for hook, index in cells if hook in trace])

    def deliver(self, change: Change) -> None:
        """Hand `change` to session_changed now if the panel is on screen, else when it is shown."""
        if self.isVisible():
            self.session_changed(change)
        else:                                   # hidden: catch up when shown
            self._pending |= change

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LanguageChange:
            self.setAccessibleName(self.title())
        return super().event(event)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self._pending:
            change, self._pending = self._pending, NO_CHANGE
            self.session_changed(change)
        follow_fonts(self)

    def _follow_appearance(self) -> None:
        """The parts' chosen text sizes at the new zoom (or presentation mode): see app/labs/fonts.py."""
        if self.isVisible():
            follow_fonts(self)

    def is_behind(self) -> bool:
        """Whether changes are waiting for the panel to be shown."""
        return bool(self._pending)

    def session_changed(self, change: Change) -> None:
        """React to one Session notification (only ever called while the panel is visible)."""

    def _tab_changed(self, index: int) -> None:
        if 0 <= index < len(self.lab.parts) and self.tabs.count() == len(self.lab.parts):
            self.part_shown(self.lab.parts[index])
            if self.isVisible():
                follow_fonts(self)

    def part_shown(self, part: str) -> None:
        """A part came forward (by a lesson step or by the learner's click on its tab)."""


def show_only(widgets, hidden, within: QWidget) -> None:
    """Presenting, texts step aside while the room is short: show each of `widgets` but those in
    `hidden` (as seen within `within`); one already as asked is left alone (no relayout)."""
    for widget in widgets:
        if widget.isVisibleTo(within) == (widget in hidden):
            widget.setVisible(widget not in hidden)
