"""A teacher's 1024×768 projector with the interface zoom at 150 %, presenting: the C4 lesson's
pages of the two-neuron lab and of the FFN page fit the room their step leaves them, with no
scrolling and their figure whole (the presentation walk does not visit this configuration).

The drawing and the FFN page's parts are shown alone at the size their lab has in the window at
their step (measured in the presenting window, the lesson's caption above it; the captions differ
in height in English and Chinese); the last test walks the fitted steps in the presenting window
itself, with the walk's own checks (the other pages fit alone at that size even before: in the
window they did not)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QWidget

from app.session import Session
from core.formats.scenario import load_scenario
from tests.app.fit_helpers import hidden_axes, hidden_item, hidden_part, scrolling_pages
from tests.app.helpers import settle
from tests.conftest import SCENARIOS

WIDTH = 1024
# (part, language) → the lab's height in the 1024×768 presenting window at 150 %, at the lesson's
# shortest step showing that part (c4-ffn: steps 1–9 the two-neuron lab, 10–14 the FFN page)
XOR_ROOMS = {("ffn", "en"): 566, ("ffn", "zh"): 573, ("neurons", "en"): 573, ("neurons", "zh"): 535}
FFN_ROOMS = {("width", "zh"): 535,
             ("shuffle", "en"): 573, ("shuffle", "zh"): 573, ("misconceptions", "en"): 542,
             ("misconceptions", "zh"): 535}


def _show(qtbot, panel, part: str, height: int) -> QWidget:
    qtbot.addWidget(panel)
    panel.resize(WIDTH, height)
    panel.set_focus(part)
    panel.show()
    qtbot.waitExposed(panel)
    page = panel.tabs.currentWidget()
    bar = page.verticalScrollBar()
    settle(lambda: page.viewport().height() > 0 and bar.isVisible() == (bar.maximum() > 0))   # laid out
    return page


def _xor(qtbot, part: str, language: str, activation: str = "relu"):
    from app.labs.xor import XorLabPanel
    session = Session(load_scenario(SCENARIOS / "c4-xor.json"))
    if activation != session.config.activation:
        session.set_config(activation=activation)
    panel = XorLabPanel(session)
    _show(qtbot, panel, part, XOR_ROOMS[(part, language)])
    return session, panel


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("activation", ["relu", "identity", "gelu_tanh"])
def test_the_drawing_fits_with_every_spin_whole_and_off_the_nodes(qtbot, projector, language, activation):
    """Steps 4–6 (ReLU, no activation, GELU): the drawing scrolled 71–168 px, its lower spins out of
    sight, the write-back spins on the neurons and Σ. Presenting, its lengths are tighter, its spins
    narrower and the caption steps aside: the whole drawing is seen, each spin off every node."""
    projector(language)
    _, panel = _xor(qtbot, "ffn", language, activation)
    assert scrolling_pages(panel) == []
    diagram = panel.part("ffn").diagram
    assert hidden_part(diagram, panel) is None
    spins = list(diagram.spins.values())
    for k, spin in enumerate(spins):
        assert hidden_part(spin, panel) is None
        for other in spins[k + 1:]:
            assert not spin.geometry().intersects(other.geometry()), (spin.objectName(), other.objectName())
        for name, rect in diagram._geometry.items():
            assert not QRectF(spin.geometry()).intersects(rect), (spin.objectName(), name)
    assert not panel.part("ffn").ffn_caption.isVisible()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_neuron_maps_fit_with_their_titles_axes_and_labels_whole(qtbot, projector, language):
    """Step 9: the page scrolled 27 px (zh 70), the second map's title and the colour bar were
    under the notes beside the maps (the maps' titles need 862 px). Presenting, the notes (the
    caption says what each neuron lights up for and the sum) step aside and the maps fill the
    page's width: both titles, axes and the colour bar are seen, no sentence's label on another."""
    projector(language)
    _, panel = _xor(qtbot, "neurons", language)
    part = panel.part("neurons")
    settle(lambda: not part.notes.isVisible())
    settle(lambda: not panel.tabs.currentWidget().verticalScrollBar().isVisible())
    assert scrolling_pages(panel) == []
    for j, plot in enumerate(part.map_plots):
        assert hidden_axes(part.maps_view, plot, panel, f"map {j + 1}") == []
        labels = [item.sceneBoundingRect() for item in part.map_labels[j] if item.isVisible()]
        assert len(labels) == 4
        for k, rect in enumerate(labels):
            assert all(not rect.intersects(other) for other in labels[k + 1:]), (j, k)
    assert hidden_item(part.maps_view, part.maps_bar, panel, "colour bar") is None


def test_with_room_the_neuron_notes_stay_beside_square_maps(qtbot, projector):
    """1920×1080 with 150 %: the notes and the sum beside the maps, each map square, as before."""
    projector("en")
    _, panel = _xor(qtbot, "neurons", "en")
    part = panel.part("neurons")
    panel.resize(1900, 880)
    settle(lambda: part.notes.isVisible() and part.maps_summary.isVisible())
    assert all(plot.vb.state["aspectLocked"] for plot in part.map_plots)


def test_at_the_desk_the_lab_is_laid_out_as_before(qtbot):
    """None of the presenting choices at the desk: the caption, the hint, the formula sizes and the
    activation's title above its box are where they were."""
    from app.labs.xor import XorLabPanel
    from app.labs.xor.common import FORMULA_PT
    session = Session(load_scenario(SCENARIOS / "c4-xor.json"))
    panel = XorLabPanel(session)
    _show(qtbot, panel, "ffn", 800)
    assert panel.part("ffn").ffn_caption.isVisible()
    overview = panel.overview
    assert overview.activation_title.geometry().bottom() < overview.activation_combo.geometry().top()
    panel.set_focus("compute")
    settle(lambda: panel.part("compute").compute_hint.isVisible())
    assert panel.part("compute").expansion_label.font().pointSizeF() == pytest.approx(FORMULA_PT + 1)
    panel.set_focus("failure")
    settle(lambda: panel.part("failure").proof_label.isVisible())
    assert panel.part("failure").proof_label.font().pointSizeF() == pytest.approx(FORMULA_PT)


# --- the FFN page ------------------------------------------------------------------------------------
def _ffn(qtbot, part: str, language: str):
    from app.labs.ffn_page import FfnPagePanel
    session = Session(load_scenario(SCENARIOS / "block-default.json"))
    panel = FfnPagePanel(session)
    _show(qtbot, panel, part, FFN_ROOMS[(part, language)])
    return panel


@pytest.mark.parametrize(("part", "language"), [("width", "zh"), ("shuffle", "en"), ("shuffle", "zh"),
                                                 ("misconceptions", "en"), ("misconceptions", "zh")])
def test_the_ffn_page_s_parts_need_no_scrolling(qtbot, projector, part, language):
    """Steps 11, 13, 14: the width page scrolled 40 px (zh), the shuffle 228 px (zh 174, both tables
    cut), the misconceptions 127 px (zh 115, the plots' axes below the edge). Presenting, the rows
    stand closer and what the caption says (the shuffle's intro) or a footnote waits for the desk.
    (The formula, step 10, shares the window with the dataflow: the window's walk below.)"""
    projector(language)
    panel = _ffn(qtbot, part, language)
    assert scrolling_pages(panel) == []
    if part == "shuffle":
        for widget in (panel.shuffle.button, panel.shuffle.ffn_table, panel.shuffle.attention_table,
                       panel.shuffle.verdict):
            assert hidden_part(widget, panel) is None, widget.objectName()
    elif part == "misconceptions":                   # the plots' axes: the window's walk below
        mis = panel.misconceptions
        for widget in (mis.claim1, mis.claim2, mis.claim3, mis.summary1, mis.slider, mis.go_shuffle):
            assert hidden_part(widget, panel) is None


def test_the_shuffle_page_still_fits_after_a_shuffle(qtbot, projector):
    """A shuffle lengthens the order line and the verdict: the page still needs no scrolling."""
    projector("en")
    panel = _ffn(qtbot, "shuffle", "en")
    panel.shuffle.button.click()
    settle(lambda: panel.source.step > 0)
    settle(lambda: not panel.tabs.currentWidget().verticalScrollBar().isVisible())
    assert scrolling_pages(panel) == []


def test_with_room_the_softmax_explanation_and_the_width_intro_stay(qtbot, projector):
    """The misconceptions' softmax explanation and the width page's intro step aside only when the
    page lacks the height (1024×768 at 150 %); with a taller room (1920×1080 at 150 %) they are shown."""
    projector("en")
    panel = _ffn(qtbot, "misconceptions", "en")
    assert not panel.misconceptions.text2.isVisible()
    panel.resize(1900, 880)
    settle(lambda: panel.misconceptions.text2.isVisible())
    assert scrolling_pages(panel) == []
    panel.set_focus("width")
    settle(lambda: panel.width_part.intro.isVisible())
    panel.resize(WIDTH, FFN_ROOMS[("width", "zh")])
    settle(lambda: not panel.width_part.intro.isVisible())


# --- the lesson's steps in the presenting window ----------------------------------------------------
FITTED_STEPS = ("question", "naive", "failure", "relu", "collapse", "gelu", "bias", "compute", "neurons", "formula",
                "width", "shuffle", "misconceptions")


@pytest.mark.window
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_c4_lesson_s_fitted_steps_in_the_presenting_window(qapp, language):
    """The walk's own rules at 1024×768 with 150 % zoom for the steps these pages serve: no page
    scrolls and each step's figure check (tests/app/lab_figures.py) finds nothing hidden (step 11:
    the plot was lower than its y axis's name is long; step 9: the neurons' maps)."""
    from tests.app.present_walk import fitted_steps
    from tests.app.readability import Config
    from tests.conftest import ROOT
    problems = fitted_steps(qapp, Config(1024, 768, 1.5, language), ROOT / "resources/lessons/c4-ffn.json",
                            FITTED_STEPS)
    assert not problems, "\n".join(problems)
