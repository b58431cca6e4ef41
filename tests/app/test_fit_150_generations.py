"""A teacher's 1024×768 projector with the interface zoom at 150 %, presenting: the generations
lesson's block steps (the preset part under the block diagram) and its growth step fit the room
their step leaves them, with no scrolling and the figure whole (the presentation walk does not
visit this configuration; tests/app/test_fit_150_on_1024x768.py does the same for the C4 lesson).

The preset part is shown alone with the height its page has in the presenting window at its step
(302 px in most, 279 px at step 13 in Chinese, 321 px at step 2 in English: the caption's height
differs); the window test walks the fitted steps with the walk's own checks."""
from __future__ import annotations

import pytest

from app.session import Session
from app.widgets.appearance import appearance
from core.labs import generations as core
from tests.app.fit_helpers import hidden_part, scrolling_pages
from tests.app.helpers import settle

WIDTH = 1024
FITTED_STEPS = ("original", "growth", "gpt2", "llama", "anchor", "divergence")


def _preset(qtbot, generation: str, room: int):
    """The lab on the preset part, its page's viewport `room` pixels high."""
    from app.labs.generations import GenerationsPanel
    panel = GenerationsPanel(Session(core.preset(generation)))
    qtbot.addWidget(panel)
    panel.resize(WIDTH, room + 60)
    panel.set_focus("preset")
    panel.show()
    qtbot.waitExposed(panel)
    page = panel.tabs.currentWidget()
    settle(lambda: page.viewport().height() > 0)
    panel.resize(WIDTH, panel.height() + room - page.viewport().height())
    bar = page.verticalScrollBar()
    settle(lambda: page.viewport().height() == room and bar.isVisible() == (bar.maximum() > 0))
    return panel


@pytest.mark.parametrize(("generation", "language", "room"),
                         [("original", "en", 321), ("anchor", "en", 302), ("anchor", "zh", 302),
                          ("divergence", "zh", 279)])
def test_the_preset_part_fits_under_the_diagram(qtbot, projector, generation, language, room):
    """Steps 2, 5, 7, 10, 13: the page scrolled 34–128 px, the outputs table's last rows out of
    sight. Presenting, the block's switches in words, the generation's title and the table's intro
    step aside (the diagram, the lesson's title and caption say them): the generation buttons, what
    changed and the whole table are seen."""
    projector(language)
    panel = _preset(qtbot, generation, room)
    part = panel.preset
    assert scrolling_pages(panel) == []
    for widget in (part.outputs, part.changes, *part.buttons.values()):
        assert hidden_part(widget, panel) is None
    assert not part.built.isVisible()


def test_with_room_and_at_the_desk_the_preset_part_shows_every_text(qtbot, projector):
    """1920×1080 with 150 % gives the page 600 px: nothing steps aside; at the desk nothing ever does."""
    projector("zh")
    panel = _preset(qtbot, "anchor", 600)
    part = panel.preset
    assert all(widget.isVisible() for widget in (part.title, part.changes, part.built, part.outputs_intro))
    assert scrolling_pages(panel) == []
    panel.resize(WIDTH, panel.height() - 300)
    settle(lambda: not part.built.isVisible())
    appearance().set_presenting(False)
    settle(lambda: all(widget.isVisible() for widget in (part.title, part.built, part.outputs_intro)))


@pytest.mark.window
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_generations_lesson_s_fitted_steps_in_the_presenting_window(qapp, language):
    """The walk's own rules at 1024×768 with 150 % zoom for the fitted steps: no page scrolls and
    each step's figure check finds nothing hidden (step 3: the growth plot was lower than its y
    axis's name is long). Steps 1, 6 and 8 (the map, the comparison, the parameters) do not fit yet."""
    from tests.app.present_walk import fitted_steps
    from tests.app.readability import Config
    from tests.conftest import ROOT
    problems = fitted_steps(qapp, Config(1024, 768, 1.5, language), ROOT / "resources/lessons/generations.json",
                            FITTED_STEPS)
    assert not problems, "\n".join(problems)


# --- the model lab (the model-neurons lesson) ----------------------------------------------------------
MODEL_FITTED_STEPS = ("text-heatmap", "ranked", "control", "heatmap", "type")


@pytest.mark.window
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_model_neurons_lesson_s_fitted_steps_in_the_presenting_window(qapp, language):
    """Steps 1–4: no snippet was shown whole (the groups' note ran over the table; Chinese, step 3:
    the question's row leaves less), step 5: 2 of the 5 guesses were seen. Presenting, the groups'
    note steps aside for the strongest snippet; the typed line's
    introduction and facts (the caption says them) step aside for the guesses. The walk's own checks
    find nothing; steps 6 and 7 (the explorer's tables, the ablation) and step 3 in Chinese do not fit yet."""
    from tests.app.present_walk import fitted_steps
    from tests.app.readability import Config
    from tests.conftest import ROOT
    # in order: the first step ranks the layer. Chinese, step 3 (the question's row above) still
    # shows no snippet whole
    steps = MODEL_FITTED_STEPS if language == "en" else [s for s in MODEL_FITTED_STEPS if s != "control"]
    problems = fitted_steps(qapp, Config(1024, 768, 1.5, language), ROOT / "resources/lessons/model-neurons.json",
                            steps)
    assert not problems, "\n".join(problems)
