"""Presentation mode, the interface zoom and the themes, driven from the keyboard and the menus.

Keys are sent to the window with QTest.keyClick, as a clicker or a keyboard sends them:
F5, Esc and the zoom keys are the window's shortcuts; PageDown, B and the number keys are read
by the window's key filters (in presentation mode only).
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QColor, QFontInfo, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QSplitter, QToolBar, QWidget

from core.resources import lessons_dir

R45 = lessons_dir() / "r45-ffn-residual-norm.json"
BOXES = ("configBox", "invariantsBox", "weightsBox", "inspectorBox")


def _window(blocklab_open, path=R45, language="en"):
    lab = blocklab_open(path, language=language)
    lab.window.activateWindow()
    lab.qtbot.waitUntil(lambda: QApplication.activeWindow() is lab.window)   # shortcuts need an active window
    return lab, lab.window


def _layout(window):
    """What presentation mode must give back: geometry, state, bars, boxes, splitter sizes."""
    return {
        "geometry": window.geometry(),
        "full screen": window.isFullScreen(),
        "menu bar": window.menuBar().isVisible(),
        "toolbars": [bar.isVisible() for bar in window.findChildren(QToolBar)],
        "boxes": {name: window.findChild(QWidget, name).isVisible() for name in BOXES},
        "splitters": {s.objectName(): s.sizes() for s in window.findChildren(QSplitter)},
        "font": QApplication.font().pointSizeF(),
        "picker": window.lesson_bar.picker.isVisible(),
    }


def _text_pixels(widget) -> int:
    return QFontInfo(widget.font()).pixelSize()


def test_f5_enters_presentation_mode_and_esc_restores_the_layout_exactly(blocklab_open):
    lab, window = _window(blocklab_open)
    before = _layout(window)
    assert before["menu bar"] and all(before["boxes"].values())
    QTest.keyClick(window, Qt.Key_F5)
    presentation = window.presentation
    assert presentation.active and window.isFullScreen()
    assert window.screen() is QApplication.primaryScreen()      # full screen on the window's own screen
    assert not window.menuBar().isVisible()
    assert not any(bar.isVisible() for bar in window.findChildren(QToolBar))
    # Step 1 names only the diagram: no editing panels, no inspector; the plots and caption stay.
    assert not any(window.findChild(QWidget, name).isVisible() for name in BOXES)
    assert window.dataflow.isVisible() and window.plots.isVisible() and window.lesson_bar.caption.isVisible()
    assert not window.lesson_bar.picker.isVisible() and window.lesson_bar.leave.isVisible()
    assert _text_pixels(window.lesson_bar.next) >= 16 and _text_pixels(window.lesson_bar.caption) >= 20
    assert window.findChild(QAction, "actionPresent").isChecked()
    QTest.keyClick(window, Qt.Key_Escape)
    assert not presentation.active
    assert _layout(window) == before
    assert not window.findChild(QAction, "actionPresent").isChecked()
    # F5 toggles, and the lesson bar's button leaves too.
    QTest.keyClick(window, Qt.Key_F5)
    assert presentation.active
    window.lesson_bar.leave.click()
    assert not presentation.active and _layout(window) == before


def test_leaving_presentation_mode_skips_a_focused_widget_deleted_meanwhile(blocklab_open):
    """Found by the 10,000-action soak (seed 2): the keyboard-shortcuts table had the focus when
    presentation mode began, the dialog was replaced (and deleted) meanwhile, and leaving tried to
    give the focus back to the deleted table (RuntimeError). Now leaving puts back what is left."""
    import shiboken6
    from PySide6.QtCore import QCoreApplication, QEvent

    from app.help import HelpMenu
    lab, window = _window(blocklab_open)
    before = _layout(window)
    help_menu = window.findChild(HelpMenu)
    dialog = help_menu.show_shortcuts()
    dialog.table.setFocus()
    lab.qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.table)
    window.presentation.enter(full_screen=False)
    assert window.presentation.active
    about = help_menu.show_about()                      # closes the shortcuts dialog and deletes it
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not shiboken6.isValid(dialog)
    window.presentation.leave()                         # raised RuntimeError here
    about.close()
    assert not window.presentation.active and _layout(window) == before


def test_a_step_that_names_editing_panels_shows_them_in_presentation_mode(blocklab_open):
    lab, window = _window(blocklab_open)
    before = _layout(window)
    window.presentation.enter(full_screen=False)
    shown = lambda: {name for name in BOXES if window.findChild(QWidget, name).isVisible()}  # noqa: E731
    steps = window.lessons.lesson.steps
    for position, step in enumerate(steps):
        window.lessons.go(position)
        expected = {box for panel, box in (("config", "configBox"), ("checks", "invariantsBox"),
                                           ("weights", "weightsBox"), ("inspector", "inspectorBox"))
                    if panel in step.panels}
        assert shown() == expected, (position, step.panels)
    window.lessons.go(0)
    # Free exploration: the inspector is back, the editing panels stay hidden, the picker shows.
    window.lessons.close()
    assert shown() == {"inspectorBox"} and window.lesson_bar.picker.isVisible()
    window.open_lesson(R45)
    window.presentation.leave()
    assert _layout(window) == before


def _whole_on_screen(widget, window) -> bool:
    """The widget lies inside every ancestor up to the window: nothing of it is cut off."""
    from PySide6.QtCore import QPoint, QRect
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        if not QRect(parent.mapTo(window, QPoint(0, 0)), parent.size()).contains(rect):
            return False
        parent = parent.parentWidget()
    return window.rect().contains(rect)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_at_a_projector_s_1024x768_the_worked_formula_shows_whole(blocklab_open, language):
    """Presentation mode at 1024×768 puts each step's panels where their text fits: the
    inspector's formula (up to 15 lines at step 5) never scrolls. It stays under the diagram when
    its formula and all its table's columns fit there; else it takes the right-hand column, with
    the step's options below it (step 2: its 1×6 table is wider than the room beside the plots) or,
    when both do not fit, beside the plots (steps 5 and 9). Leaving puts everything back."""
    from tests.app.helpers import settle
    lab, window = _window(blocklab_open, language=language)
    window.resize(1024, 768)
    settle(lambda: window.width() == 1024)
    before = _layout(window)
    window.presentation.enter(full_screen=False)
    panels, explanation = window.presentation.panels, window.inspector.explanation
    # (step 3: below the inspector, or beside the plots where the wrapped Chinese title leaves it too little height)
    for position, inspector_at, others in ((1, "right", {"weights": {"home"}}), (4, "right", {"config": {"shelf"}}),
                                           (8, "right", {"weights": {"shelf"}}), (2, "right", {"weights": {"home", "shelf"}})):
        window.lessons.go(position)
        settle(lambda: explanation.isVisible() and explanation.height() >= explanation.content_height())
        assert panels.place_of("inspector") == inspector_at, position
        assert all(panels.place_of(panel) in places for panel, places in others.items()), position
        if "weights" in others:                           # every column of the weights shown (numbers trimmed: 0.5, 1)
            assert window.weight_editor.table.horizontalScrollBar().maximum() == 0, position
        # every column of the inspector's table in view (step 2: h₁ … h₆ beside W_in; step 5: the
        # 1×4 row standing, d1 … d4 down, beside the options' shelf)
        assert window.inspector.table.horizontalScrollBar().maximum() == 0, position
        assert window.inspector.model.transposed == (position == 4), position
        assert explanation.verticalScrollBar().maximum() == 0, position
        for panel in ("inspector", *others):
            box = panels.boxes[panel]
            assert box.isVisible() and _whole_on_screen(box, window), (position, panel)
        for button in panels.boxes["weights"].findChildren(QWidget, "weightFileButton"):
            assert not button.isVisible() or _whole_on_screen(button, window), position
        if position == 8:                                 # step 9: W_O's head picker, without its word "Head"
            editor = window.weight_editor
            assert editor.head_selector.isVisible() and _whole_on_screen(editor.head_selector, window)
            assert editor.head_label.text() == ""
    window.lessons.go(0)                                   # the caption as it was
    window.presentation.leave()
    assert window.weight_editor.head_label.text()          # "Head" again off the projector
    assert _layout(window) == before
    assert window.findChild(QWidget, "stepPanelsShelf") is None
    assert window.inspector.parentWidget().parentWidget() is window.findChild(QSplitter, "bottomSplitter")


def test_a_live_switch_of_language_places_the_panels_again(blocklab_open):
    """Chinese and English formulas wrap differently: after a switch at a step, the panels are
    placed again and the formula still shows whole, in a window that kept its size."""
    from app import i18n
    from tests.app.helpers import settle
    lab, window = _window(blocklab_open)
    window.resize(1024, 768)
    settle(lambda: window.width() == 1024)
    window.presentation.enter(full_screen=False)
    explanation = window.inspector.explanation
    try:
        for position in (8, 4):
            window.lessons.go(position)
            for language in ("zh", "en"):
                i18n.install(language)
                settle(lambda: window.lesson_bar.leave.text() == ("退出演示（Esc）" if language == "zh"
                                                                  else "Leave presentation (Esc)"))
                settle(lambda: explanation.verticalScrollBar().maximum() == 0)
                assert window.width() == 1024 and explanation.isVisible(), (position, language)
    finally:
        i18n.install("en")
        window.presentation.leave()


def test_step_keys_blank_and_spotlight_in_presentation_mode(blocklab_open):
    lab, window = _window(blocklab_open)
    presentation, lessons = window.presentation, window.lessons
    view = window.dataflow
    numbered = view.node_order()
    QTest.keyClick(window, Qt.Key_2)
    assert view.spotlighted() is None                                # outside presentation: nothing
    QTest.keyClick(window, Qt.Key_F5)
    # A button the teacher clicked a moment ago does not swallow the clicker's keys.
    window.lesson_bar.reset.setFocus()
    for key, index in ((Qt.Key_PageDown, 1), (Qt.Key_Space, 2), (Qt.Key_Right, 3), (Qt.Key_Left, 2),
                       (Qt.Key_PageUp, 1)):
        QTest.keyClick(QApplication.focusWidget() or window, key)
        assert lessons.index == index, key
    # B blanks the screen (white in the light theme) and back.
    QTest.keyClick(window, Qt.Key_B)
    assert presentation.blanked and presentation.blank_screen.isVisible()
    assert presentation.blank_screen.geometry() == window.rect()
    assert presentation.blank_screen.grab().toImage().pixelColor(5, 5) == QColor("#ffffff")
    QTest.keyClick(window, Qt.Key_B)
    assert not presentation.blanked and not presentation.blank_screen.isVisible()
    # A step key brings the screen back without stepping, as slide software does.
    QTest.keyClick(window, Qt.Key_B)
    QTest.keyClick(window, Qt.Key_PageDown)
    assert not presentation.blanked and lessons.index == 1
    # Number keys spotlight the k-th numbered node of the real diagram, 0 clears.
    numbered = view.node_order()
    QTest.keyClick(window, Qt.Key_2)
    assert view.spotlighted() == numbered[1]
    QTest.keyClick(window, Qt.Key_1)
    assert view.spotlighted() == numbered[0]
    QTest.keyClick(window, Qt.Key_0)
    assert view.spotlighted() is None
    # Esc leaves a blanked screen too.
    QTest.keyClick(window, Qt.Key_B)
    QTest.keyClick(window, Qt.Key_Escape)
    assert not presentation.active and not presentation.blanked and not presentation.blank_screen.isVisible()
    QTest.keyClick(window, Qt.Key_B)
    assert not presentation.blanked                                  # B is a letter outside presentation


def test_interface_zoom_keys_scale_the_text_and_persist_in_settings(blocklab_open):
    from app.launch import build_window
    from app.widgets.appearance import ZOOM_KEY, appearance, settings

    lab, window = _window(blocklab_open)
    base = QApplication.font().pointSizeF()
    caption = _text_pixels(window.lesson_bar.caption)
    QTest.keyClick(window.dataflow, Qt.Key_Equal, Qt.ControlModifier)    # also where the diagram has focus
    QTest.keyClick(window, Qt.Key_Equal, Qt.ControlModifier)
    assert appearance().zoom == 1.5
    assert QApplication.font().pointSizeF() == pytest.approx(base * 1.5)
    assert _text_pixels(window.lesson_bar.next) >= 19 and _text_pixels(window.lesson_bar.caption) > caption
    assert "150 %" in window.statusBar().currentMessage()
    assert float(settings().value(ZOOM_KEY)) == 1.5
    QTest.keyClick(window, Qt.Key_Minus, Qt.ControlModifier)
    assert appearance().zoom == 1.25
    for _ in range(10):
        window.findChild(QAction, "actionInterfaceZoomIn").trigger()
    assert appearance().zoom == 2.5 and not window.findChild(QAction, "actionInterfaceZoomIn").isEnabled()
    QTest.keyClick(window.dataflow, Qt.Key_0, Qt.ControlModifier)   # the interface's, not the diagram's fit
    assert appearance().zoom == 1.0 and QApplication.font().pointSizeF() == pytest.approx(base)
    QTest.keyClick(window, Qt.Key_Equal, Qt.ControlModifier)
    # A new process starts at the default; the GUI's start takes the remembered zoom back.
    appearance().reset()
    _, again = build_window(R45, "en", remember=True)
    lab.qtbot.addWidget(again)
    assert appearance().zoom == 1.25
    assert QApplication.font().pointSizeF() == pytest.approx(base * 1.25)
    # Screenshots and the test fixtures do not read the settings.
    appearance().reset()
    _, fresh = build_window(R45, "en")
    lab.qtbot.addWidget(fresh)
    assert appearance().zoom == 1.0


def test_f_fits_the_diagram_now_that_ctrl_0_is_the_interface_zoom(blocklab_open):
    lab, window = _window(blocklab_open)
    flow = window.dataflow
    fitted = flow.transform().m11()
    flow.zoom_in()
    assert flow.transform().m11() > fitted
    QTest.keyClick(window, Qt.Key_F)
    assert flow.transform().m11() == pytest.approx(fitted)
    assert window.findChild(QAction, "actionFit").shortcut().toString() == "F"
    shortcuts = [sequence.toString() for action in window.findChildren(QAction) for sequence in action.shortcuts()]
    assert len(shortcuts) == len(set(shortcuts)), "a key sequence is registered twice"


def test_themes_change_the_palette_the_plots_defaults_and_the_caption_bar(blocklab_open):
    import pyqtgraph as pg

    from app.widgets.appearance import CONTRAST, DARK, THEME_KEY, appearance, settings

    lab, window = _window(blocklab_open)
    light_window = QApplication.palette().color(QPalette.Window)
    window.findChild(QAction, "actionTheme_dark").trigger()
    palette = QApplication.palette()
    assert palette.color(QPalette.Window) == QColor(DARK.background)
    assert palette.color(QPalette.WindowText) == QColor(DARK.foreground)
    assert pg.getConfigOption("background") == DARK.background
    assert window.lesson_bar.palette().color(QPalette.Window) == QColor(DARK.caption_background)
    assert settings().value(THEME_KEY) == "dark"
    assert window.findChild(QAction, "actionTheme_dark").isChecked()
    window.presentation.enter(full_screen=False)
    QTest.keyClick(window, Qt.Key_B)
    assert window.presentation.blank_screen.grab().toImage().pixelColor(5, 5) == QColor("#000000")
    window.presentation.leave()
    window.findChild(QAction, "actionTheme_contrast").trigger()
    palette = QApplication.palette()
    assert (palette.color(QPalette.Window), palette.color(QPalette.WindowText)) == (QColor("#ffffff"), QColor("#000000"))
    assert pg.getConfigOption("foreground") == CONTRAST.foreground
    # Following the system: dark when the platform says so, the platform's own palette otherwise.
    window.findChild(QAction, "actionTheme_system").trigger()
    assert QApplication.palette().color(QPalette.Window) == light_window
    appearance().set_system_dark(True)
    assert QApplication.palette().color(QPalette.Window) == QColor(DARK.background)
    appearance().set_system_dark(False)
    assert QApplication.palette().color(QPalette.Window) == light_window


def test_the_view_menu_and_toolbar_offer_presentation_zoom_and_theme_in_chinese(blocklab_open):
    from app import i18n

    lab, window = _window(blocklab_open)
    view = next(action.menu() for action in window.menuBar().actions() if action.text() == "&View")
    names = [action.objectName() for action in view.actions()]
    for name in ("actionFit", "actionPresent", "actionInterfaceZoomIn", "actionInterfaceZoomOut",
                 "actionInterfaceZoomReset"):
        assert name in names
    theme_menu = window.findChild(QWidget, "menuTheme")
    assert [a.objectName() for a in theme_menu.actions()] == [
        "actionTheme_system", "actionTheme_light", "actionTheme_contrast", "actionTheme_dark"]
    toolbar = window.findChild(QToolBar, "mainToolBar")
    assert window.presentation.present_action in toolbar.actions()
    i18n.install("zh")                                              # the language, live
    lab.qtbot.waitUntil(lambda: window.presentation.present_action.text() == "演示模式")
    assert theme_menu.title() == "主题"
    window.presentation.enter(full_screen=False)
    assert window.lesson_bar.leave.text() == "退出演示（Esc）"


@pytest.mark.window
def test_present_and_zoom_on_the_command_line(qapp, monkeypatch, capsys, tmp_path):
    import sys

    import main
    from app import document, launch
    from app.main_window import MainWindow
    from app.recovery import recovery_folder
    from app.widgets.appearance import appearance

    args = main.build_parser().parse_args(["open", str(R45), "--present", "--zoom", "150"])
    assert (args.present, args.zoom) == (True, 150)
    args = main.build_parser().parse_args(["--present", "open", str(R45)])
    assert (args.present, args.zoom) == (True, None)
    for bad in ("90", "260", "big"):
        with pytest.raises(SystemExit):
            main.main(["open", str(R45), "--zoom", bad])
        assert "100 to 250" in capsys.readouterr().err
    # The GUI starts presenting at that zoom (the event loop replaced by a look at the window).
    seen = {}

    def look(*_args):
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible())
        seen.update(active=window.presentation.active, zoom=appearance().zoom)
        # The start-up the GUI queued (offer work a crash left behind) runs now, in this test,
        # not in whichever test next turns the event loop.
        QApplication.processEvents()
        window.close()
        return 0

    # Its own empty recovery folder: the start-up must not find another test's unsaved work
    # and ask about it (a modal question nobody answers).
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    searched = []
    find_recovered = document.find_recovered
    monkeypatch.setattr(document, "find_recovered",
                        lambda folder=None: searched.append(recovery_folder()) or find_recovered(folder))
    # run_gui installs the GUI's exception hook (a log in the user's home, a modal dialog): here it
    # installs the hook it finds now, pytest-qt's, so that an error still fails this test.
    monkeypatch.setattr(launch, "_exception_hook", sys.excepthook)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(QApplication, "exec", look)
    assert main.main(["open", str(R45), "--present", "--zoom", "150"]) == 0
    assert seen == {"active": True, "zoom": 1.5}
    assert searched == [tmp_path / "data" / "blocklab" / "recovery"]


@pytest.mark.window
def test_screenshot_in_presentation_mode(qapp, tmp_path, capsys):
    from PySide6.QtGui import QImage

    import main
    from app.widgets.appearance import LIGHT, appearance

    shot, plain = tmp_path / "present.png", tmp_path / "plain.png"
    common = ["--lesson", "r45-ffn-residual-norm", "--step", "2", "--size", "1024x768", "--lang", "zh"]
    assert main.main(["screenshot", str(shot), *common, "--present", "--zoom", "150"]) == 0, capsys.readouterr().err
    assert main.main(["screenshot", str(plain), *common]) == 0
    present, normal = QImage(str(shot)), QImage(str(plain))
    assert (present.width(), present.height()) == (1024, 768)
    # No menu bar: the caption bar starts at the top; the plain window starts with its menu bar.
    assert present.pixelColor(3, 3) == QColor(LIGHT.caption_background)
    assert normal.pixelColor(3, 3) != QColor(LIGHT.caption_background)
    assert appearance().zoom == 1.0 and not appearance().presenting          # nothing leaks to the next window


def _attention_texts_outside(window) -> list[str]:
    """The attention figure's texts (titles, axis titles, ticks, the colour bar's labels, cell
    numbers) that are not wholly inside the part of the figure's viewport the window shows."""
    from PySide6.QtCore import QPoint, QRect, QRectF
    from tests.app.plot_helpers import texts_of
    tab = window.findChild(QWidget, "plotsAttentionTab")
    viewport = tab.graphics.viewport()
    origin = viewport.mapTo(window, QPoint(0, 0))
    shown = QRect(origin, viewport.size())
    parent = viewport.parentWidget()
    while parent is not None and parent is not window:
        shown = shown.intersected(QRect(parent.mapTo(window, QPoint(0, 0)), parent.size()))
        parent = parent.parentWidget()
    visible = QRectF(shown.intersected(window.rect())).adjusted(-1, -1, 1, 1)
    return [f"{text.kind} {text.text!r} at {text.rect.translated(origin.x(), origin.y()).getRect()}"
            f" outside {visible.getRect()}" for text in texts_of(tab.graphics)
            if not visible.contains(text.rect.translated(origin.x(), origin.y()))]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_free_exploration_presenting_at_1024x768_shows_the_attention_figure_whole(blocklab_open, language):
    """Issue 9's "nothing is cut off" also without a lesson: the default block presenting at a
    projector's 1024×768 used to cut the heatmap's "key (column)" title and the colour bar's "0"
    at the tab's bottom (the tab re-laid itself out inside the figure's resize, leaving the
    figure's viewport shorter than the figure)."""
    from core.resources import default_scenario
    from tests.app.helpers import settle
    lab, window = _window(blocklab_open, path=default_scenario(), language=language)
    window.resize(1024, 768)
    settle(lambda: window.width() == 1024)
    window.presentation.enter(full_screen=False)
    window.resize(1024, 768)
    for _ in range(10):                               # posted layout requests and zero-interval timers
        QApplication.processEvents()
    tab = window.findChild(QWidget, "plotsAttentionTab")
    assert tab.isVisible() and tab.shown_heads()
    assert _attention_texts_outside(window) == []
    assert tab.graphics.viewport().size() == tab.graphics.size()


@pytest.mark.parametrize("language", ["zh", "en"])
def test_r45_step_9_presenting_at_1024x768_shows_labelled_attention_maps(blocklab_open, language):
    """R45 step 9 gives the plots a narrow corner (about 316×290 px) at 1024×768. Both heads
    used to be stacked there, each map about 50 px tall, the keys' labels all hidden (every 4th
    key, both at the map's ends, wider than their cells) and 2 of 5 queries labelled. Now a map
    that shows at least every other key's and query's label, whatever heads it costs (the
    picker reaches them), nothing overlapping, cut off or under 16 px."""
    from tests.app.helpers import settle
    from tests.app.plot_helpers import overlaps, texts_of
    lab, window = _window(blocklab_open, language=language)
    window.resize(1024, 768)
    settle(lambda: window.width() == 1024)
    window.presentation.enter(full_screen=False)
    window.resize(1024, 768)
    window.lessons.go(8)
    for _ in range(10):                               # posted layout requests and zero-interval timers
        QApplication.processEvents()
    tab = window.findChild(QWidget, "plotsAttentionTab")
    assert tab.isVisible() and tab.shown_heads()
    tokens = len(tab.session.tokens)
    texts = texts_of(tab.graphics)
    for i, _head in enumerate(tab.shown_heads()):
        plot = tab.slots[i].plot
        assert plot.vb.height() >= 100 and plot.vb.width() >= 100, (i, plot.vb.size())
    keys = [t for t in texts if t.kind == "tick" and t.owner in [tab.slots[i].plot.getAxis("bottom")
                                                                  for i in range(len(tab.shown_heads()))]]
    queries = [t for t in texts if t.kind == "tick" and t.owner is tab.slots[0].plot.getAxis("left")]
    assert len(keys) >= (tokens + 1) // 2 and len(queries) >= (tokens + 1) // 2, \
        ([t.text for t in keys], [t.text for t in queries])
    assert {t.text for t in keys} <= set(tab.session.tokens)
    assert not overlaps(texts), [(a.text, b.text) for a, b in overlaps(texts)]
    assert not [t.text for t in texts if t.pixels < 16 - 0.01]
    assert _attention_texts_outside(window) == []
    # the other head is one pick away; "heads 1 of 2" shows whole or not at all
    assert tab.picker_bar.isVisible() or len(tab.shown_heads()) == tab.session.trace["attn.hook_pattern"].shape[0]
    page = tab.page_label
    assert not page.isVisible() or page.width() >= page.sizeHint().width(), (page.width(), page.sizeHint())
