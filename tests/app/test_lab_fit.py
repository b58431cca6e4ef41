"""A projector shows a lab step whole: at 1024×768 (and 1920×1080 at 150 %), in presentation
mode, in Chinese and in English, the figure a step's caption talks about is on screen without
scrolling: every plot's axes with their tick labels and titles, every control of the drawing;
and no page scrolls at any step (what lies past a page's edge is not seen on a projector:
fit_helpers.scrolling_pages, with the pages that may scroll listed in fit_helpers.MAY_SCROLL),
nor does a table of numbers, across or down (fit_helpers.sideways_tables and cut_tables).

One window per configuration walks every step of the shipped lessons, once for both rules and
for the readability measure (tests/app/present_walk.py); the lab steps have a check of what must
be visible (tests/app/lab_figures.py, with tests/app/fit_helpers.py). Each rule and
configuration is one test that reports every failure (lesson step, what is hidden) in one
message.
"""
from __future__ import annotations

import pytest

from tests.app.fit_helpers import scrolling_pages
from tests.app.lab_figures import CHECKS
from tests.app.present_walk import walk
from tests.app.readability import CONFIGS

pytestmark = pytest.mark.window


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.name)
def test_each_lab_step_shows_its_figure_whole_in_presentation_mode(qapp, config):
    found = walk(qapp, config)
    assert set(CHECKS) <= found.visited, f"steps with a figure check never shown: {set(CHECKS) - found.visited}"
    assert found.checked["figure"] == found.steps > 0
    problems = found.problems["figure"]
    assert not problems, f"{len(problems)} figures not wholly on screen:\n" + "\n".join(problems)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.name)
def test_no_page_needs_scrolling_in_presentation_mode(qapp, config):
    """A projector shows a page whole: no step, in both languages and at both sizes, shows a page
    whose scroll bar has a range, nor a number table wider or taller than its view
    (fit_helpers.MAY_SCROLL lists the pages that may scroll, with the reason; no table may)."""
    found = walk(qapp, config)
    problems, steps, expected = found.problems["scrolling"], found.steps, found.expected_steps
    assert steps == expected > 0, f"walked {steps} of the {expected} steps"
    for rule in ("scrolling_pages", "sideways_tables", "cut_tables"):   # pages; number tables across, down
        assert found.checked[rule] == steps, f"{rule} ran at {found.checked[rule]} steps"
    assert not problems, f"{len(problems)} pages or tables scroll:\n" + "\n".join(problems)


def test_the_scrolling_rule_finds_a_page_too_tall_and_spares_a_listed_one(qtbot):
    """scrolling_pages is not vacuous: a page taller than its room is reported with how much is
    hidden; the same page named in the exceptions is not; one that fits is not."""
    from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget
    window = QWidget()
    qtbot.addWidget(window)
    layout = QVBoxLayout(window)
    area = QScrollArea()
    area.setObjectName("plantedPage")
    area.setWidgetResizable(True)
    page = QWidget()
    page.setMinimumHeight(500)
    area.setWidget(page)
    layout.addWidget(area)
    window.resize(300, 200)
    window.show()
    qtbot.waitExposed(window)
    problems = scrolling_pages(window)
    assert len(problems) == 1 and problems[0].startswith("plantedPage scrolls:") and " px down " in problems[0]
    assert scrolling_pages(window, {"plantedPage": "planted"}) == []
    page.setMinimumHeight(0)
    window.resize(300, 600)
    qtbot.waitUntil(lambda: area.verticalScrollBar().maximum() == 0)
    assert scrolling_pages(window) == []
