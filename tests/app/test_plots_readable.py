"""Readable at every size, measured: every text of every plot at least 16 px at 100 % zoom (more at
more zoom), no two texts overlapping, none cut off — at the lesson block, d = 64 and a GPT-2-small
layer, at the room the plots get in a 1024×768 window, in presentation mode at 1024×768 and at
1920×1080 with 150 % zoom, in Chinese and English.

Sizes of the plots panel (measured from the window; presentation mode hides the right-hand
column, so the plots get about half the width of the screen and under half its height):
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication

from app.session import Session
from core.formats.generate import preset
from tests.app.helpers import FakeClock, make_session, settle, show
from tests.app.plot_helpers import appearance_as, cut_off, describe, overlaps, texts_of

WINDOW_1024 = (380, 340)          # the plots' room in the explorer window at 1024×768
PRESENT_1024 = (520, 340)         # presentation mode at 1024×768
WINDOW_1280 = (520, 380)          # the explorer window at 1280×800
PRESENT_1920_150 = (960, 480)     # presentation mode at 1920×1080, 150 % zoom
TABS = ("attention", "hidden", "residual", "activation", "mse")


@lru_cache(maxsize=None)
def _scenario(name: str):
    return preset(name, targets=True)


def session_of(name: str) -> Session:
    if name == "lesson":
        return make_session()
    return Session(_scenario(name), clock=FakeClock())


@pytest.fixture
def language():
    from app import i18n
    yield i18n.install
    i18n.install("en")


def panel_on(qtbot, session, size):
    from app.explorer.plots import PlotsPanel
    panel = PlotsPanel(session)
    show(qtbot, panel, *size)
    return panel


def shown(qtbot, panel, tab: str):
    panel.show_tab(tab)
    settle(lambda: panel.currentWidget().isVisible())
    if tab == "mse":
        qtbot.waitUntil(lambda: not panel.mse_tab.sweep_stale, timeout=20_000)
    for _ in range(5):               # zero-interval timers (re-laying out after a resize), layout requests
        QCoreApplication.processEvents()
    return texts_of(panel.currentWidget().graphics)


@pytest.mark.parametrize("scenario, size, lang, zoom", [
    ("lesson", PRESENT_1024, "zh", 1.0),
    ("lesson", PRESENT_1920_150, "en", 1.5),
    ("lesson", WINDOW_1280, "en", 1.0),
    ("d64", PRESENT_1024, "zh", 1.0),
    ("gpt2-small", PRESENT_1024, "en", 1.0),
    ("gpt2-small", PRESENT_1920_150, "zh", 1.5),
])
def test_every_text_is_big_enough_apart_and_on_screen(qtbot, language, scenario, size, lang, zoom):
    language(lang)
    with appearance_as(zoom):
        panel = panel_on(qtbot, session_of(scenario), size)
        for tab in TABS:
            texts = shown(qtbot, panel, tab)
            assert texts, f"{tab}: nothing measured"
            kinds = {t.kind for t in texts}
            assert {"tick", "label"} <= kinds, f"{tab}: {kinds}"
            small = [(t.text, t.pixels) for t in texts if t.pixels < 16 * zoom - 0.01]
            assert not small, f"{tab}: text under {16 * zoom} px: {small}"
            assert not overlaps(texts), f"{tab}: {describe(overlaps(texts))}"
            graphics = panel.currentWidget().graphics
            lost = [(t.text, t.rect.getRect()) for t in cut_off(graphics, texts)]
            assert not lost, f"{tab}: cut off: {lost}"
        panel.close()


@pytest.mark.parametrize("scenario", ["lesson", "d64", "gpt2-small"])
@pytest.mark.parametrize("size", [WINDOW_1024, (1024, 400)], ids=["window-1024", "1024-wide"])
def test_tick_labels_never_overlap(qtbot, scenario, size):
    """The heatmaps' tokens and units are thinned to what fits (every k-th), at any size."""
    panel = panel_on(qtbot, session_of(scenario), size)
    for tab in ("attention", "hidden", "residual"):
        texts = [t for t in shown(qtbot, panel, tab) if t.kind == "tick"]
        assert texts
        assert not overlaps(texts, tolerance=0.0), f"{scenario} {tab}: {describe(overlaps(texts, 0.0))}"
        assert not cut_off(panel.currentWidget().graphics, texts)
    panel.close()


def test_thousands_of_units_get_every_kth_label(qtbot):
    panel = panel_on(qtbot, session_of("gpt2-small"), PRESENT_1024)
    shown(qtbot, panel, "hidden")
    units = panel.hidden_tab.maps["post"].columns
    assert len(units.labels) == 3072 and units.step > 1
    ticks = units.axis._tickLevels[0]
    assert 2 <= len(ticks) <= 3072 // units.step + 1
    assert all(text == f"h{int(position - 0.5) + 1}" for position, text in ticks)
    assert all(int(position - 0.5) + 1 == units.step * (n + 1) for n, (position, _) in enumerate(ticks))
    panel.close()


def test_zoom_grows_every_font(qtbot):
    panel = panel_on(qtbot, make_session(), PRESENT_1920_150)
    sizes = {}
    for zoom in (1.0, 2.0):
        with appearance_as(zoom):
            texts = shown(qtbot, panel, "attention")
            sizes[zoom] = {kind: min(t.pixels for t in texts if t.kind == kind) for kind in ("tick", "label")}
            assert min(sizes[zoom].values()) >= 16 * zoom
    assert all(sizes[2.0][kind] >= 2 * sizes[1.0][kind] - 1 for kind in sizes[1.0])
    panel.close()


def test_lesson_attention_shows_its_numbers_and_a_big_one_its_values_on_hover(qtbot):
    panel = panel_on(qtbot, make_session(), PRESENT_1024)
    texts = shown(qtbot, panel, "attention")
    cells = [t for t in texts if t.kind == "cell"]
    tab = panel.attention_tab
    pattern = panel.session.trace["attn.hook_pattern"]
    assert len(cells) == 25 * len(tab.shown_heads())                 # every cell of every head shown
    assert min(t.pixels for t in cells) >= 16
    assert {t.text for t in cells} >= {f"{pattern[tab.shown_heads()[0], 0, 0]:.2f}"}
    panel.close()

    big = panel_on(qtbot, session_of("gpt2-small"), PRESENT_1024)
    texts = shown(qtbot, big, "attention")
    assert not [t for t in texts if t.kind == "cell"]                # 64 × 64 cells: no room for numbers
    slot = big.attention_tab.slots[0]
    vb = slot.plot.vb
    centre = vb.mapViewToScene(vb.mapSceneToView(vb.sceneBoundingRect().center()))
    query, key = slot.cell_at(centre)
    text = big.attention_tab.hover_text(centre)
    value = big.session.trace["attn.hook_pattern"][big.attention_tab.shown_heads()[0], query, key]
    assert text.startswith(f"head {big.attention_tab.shown_heads()[0] + 1}: query “t{query}” → key “t{key}”")
    assert text.endswith(f"{value:.6f}") or text.endswith("masked")
    big.attention_tab.hover.moved(centre)
    assert big.attention_tab.hover.text == text
    big.close()


def test_the_residual_legend_fits(qtbot, language):
    language("zh")
    for size in (WINDOW_1024, PRESENT_1024, WINDOW_1280):
        panel = panel_on(qtbot, make_session(), size)
        texts = shown(qtbot, panel, "residual")
        legend = [t for t in texts if t.kind == "label" and t.owner is not None
                  and t.owner.parentItem() is panel.residual_tab.legend]
        assert len(legend) == 5                                       # every stage named, none cut off
        assert not cut_off(panel.residual_tab.graphics, legend)
        panel.close()


def test_a_narrow_residual_plot_words_its_title_and_label_shorter(qtbot):
    """Presenting R45 step 5 at 1024×768 in English, the plots get 330 × 300 px beside the block
    options and the inspector: "Residual stream of token “u”" and "dimension of the stream (1…4)"
    took two lines each and left the bars about 30 px. Shorter words keep one line each."""
    from app.widgets.appearance import appearance
    from core.formats.scenario import load_scenario
    from tests.conftest import SCENARIOS
    appearance().set_presenting(True)
    panel = panel_on(qtbot, Session(load_scenario(SCENARIOS / "r45-ffn.json"), clock=FakeClock()), (330, 300))
    texts = shown(qtbot, panel, "residual")
    plot = panel.residual_tab.plot
    assert plot.titleLabel.text == "Stream of “u”" and plot.getAxis("bottom").labelText == "dimension (1…4)"
    assert plot.vb.height() >= 70
    assert not overlaps(texts) and not cut_off(panel.residual_tab.graphics, texts)
    panel.resize(700, 300)                                 # room enough: the full words
    settle(lambda: plot.titleLabel.text == "Residual stream of token “u”")
    assert plot.getAxis("bottom").labelText == "dimension of the stream (1…4)"
    panel.close()


@pytest.mark.parametrize("theme", ["light", "contrast", "dark"])
def test_themes_set_the_background_and_keep_colour_blind_safe_maps(qtbot, theme):
    from app.explorer.plots import look
    from app.widgets.appearance import appearance
    from app.widgets.style import DIVERGING
    with appearance_as(1.0, theme):
        panel = panel_on(qtbot, make_session(), PRESENT_1024)
        for tab in TABS:
            shown(qtbot, panel, tab)
            graphics = panel.currentWidget().graphics
            assert graphics.backgroundBrush().color().name() == appearance().colours.background
        attention, hidden = panel.attention_tab, panel.hidden_tab
        assert attention.bar.colorMap() is look.SEQUENTIAL and look.SEQUENTIAL.name == "viridis"
        assert hidden.bar.colorMap() is DIVERGING
        axis = hidden.maps["pre"].plot.getAxis("left")
        assert axis.textPen().color().name() == appearance().colours.foreground
        panel.close()


def test_the_theme_follows_a_change_while_open(qtbot):
    from app.widgets.appearance import DARK, LIGHT
    panel = panel_on(qtbot, make_session(), PRESENT_1024)
    shown(qtbot, panel, "hidden")
    with appearance_as(1.0, "light"):
        assert panel.hidden_tab.graphics.backgroundBrush().color().name() == LIGHT.background
        with appearance_as(1.0, "dark"):
            assert panel.hidden_tab.graphics.backgroundBrush().color().name() == DARK.background
            shown(qtbot, panel, "activation")
            assert panel.activation_tab.graphics.backgroundBrush().color().name() == DARK.background
    np.testing.assert_array_equal(np.asarray(panel.post_image.image),
                                  panel.session.trace["mlp.hook_post"].astype(np.float32))
    panel.close()


def test_in_a_1024_window_the_numbers_win_over_the_colour_bar(qtbot, language):
    """The room a 1024×768 window gives the plots holds a 5-token head with its numbers only
    without the colour bar: the numbers are shown (they say what the colours say), every key named."""
    language("zh")
    panel = panel_on(qtbot, make_session(), WINDOW_1024)
    texts = shown(qtbot, panel, "attention")
    tab = panel.attention_tab
    cells = [t for t in texts if t.kind == "cell"]
    assert len(cells) == 25 and not tab.with_bar and not tab.bar.isVisible()
    keys = [t.text for t in texts if t.kind == "tick" and t.owner is tab.slots[0].plot.getAxis("bottom")]
    assert keys == list(panel.session.tokens)
    panel.close()


NARROW_PRESENT_1024 = (320, 325)  # presentation mode at 1024×768 with the weights beside


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_narrow_panel_keeps_every_text_on_screen(qtbot, language, lang):
    """Hidden units: hook names wrap after their dot (the title spans the token axis too);
    residual: the legend drops the hook names and takes two columns."""
    language(lang)
    panel = panel_on(qtbot, make_session(), NARROW_PRESENT_1024)
    for tab, graphics in (("hidden", panel.hidden_tab.graphics), ("residual", panel.residual_tab.graphics)):
        texts = shown(qtbot, panel, tab)
        assert texts and not cut_off(graphics, texts), (tab, [(t.text, t.rect.getRect()) for t in cut_off(graphics, texts)])
    panel.close()


def test_tabs_that_do_not_fit_go_into_a_menu(qtbot, language):
    from PySide6.QtWidgets import QToolButton
    language("en")
    panel = panel_on(qtbot, make_session(), NARROW_PRESENT_1024)
    bar, button = panel.tabBar(), panel.overflow.button
    shown(qtbot, panel, "residual")
    visible = [i for i in range(panel.count()) if panel.isTabVisible(i)]
    assert button.isVisible() and panel.currentIndex() in visible and len(visible) < panel.count()
    assert not any(b.isVisible() for b in bar.findChildren(QToolButton))       # no scroll arrows
    assert all(bar.rect().contains(bar.tabRect(i)) for i in visible)
    panel.overflow._fill_menu()
    actions = button.menu().actions()
    assert [a.text() for a in actions] == [panel.tabText(i) for i in range(panel.count())]
    actions[4].trigger()                                                         # MSE
    assert panel.currentWidget() is panel.mse_tab and panel.isTabVisible(4)
    panel.resize(900, 340)
    settle(lambda: not button.isVisible())
    assert all(panel.isTabVisible(i) for i in range(panel.count()))
    panel.close()


def test_a_narrow_hidden_units_tab_gives_the_colour_bars_title_to_the_maps_titles(qtbot):
    """Presenting R45 at 1024×768 and 150 %, the hidden-units tab gets about 320 × 300 px: its maps'
    titles ("mlp.hook_pre = x·W_in + b_in") took four lines each beside a colour bar that spent
    a column on its title "value", and the second map was pushed out of sight. There the bar
    goes without its title (its numbers and colours say it), where that saves title lines."""
    from app.widgets.appearance import appearance
    from core.formats.scenario import load_scenario
    from tests.conftest import SCENARIOS
    appearance().set_presenting(True)
    appearance().set_zoom(1.5)
    try:
        panel = panel_on(qtbot, Session(load_scenario(SCENARIOS / "r45-ffn.json"), clock=FakeClock()), (320, 300))
        shown(qtbot, panel, "hidden")
        tab = panel.hidden_tab
        label = tab.bar.axis.label
        assert not label.isVisibleTo(tab.bar.axis)
        narrow_lines = tab._title_lines(tab._titles(), tab.arrangement.map_width)
        tab.bar.axis.showLabel(True)                     # what it was: more lines
        assert tab._title_lines(tab._titles(), tab.arrangement.map_width - look_label_room(tab)) > narrow_lines
        panel.resize(900, 450)                           # room enough: the bar has its title again
        settle(lambda: label.isVisibleTo(tab.bar.axis) and tab.arrangement.map_width > 300)
        panel.close()
    finally:
        appearance().reset()


def look_label_room(tab) -> float:
    from app.explorer.plots import look
    return look.label_space(tab.bar.axis)
