"""A number a caption gives is on screen where the audience can find it, written the same: the
generations lesson's last step gave the up value before and after the clamp (1.43, 1.43) while
the screen showed it only as the colour of a heatmap cell. Now the step shows the inspector on
that cell: its table and worked formula print the caption's numbers."""
from __future__ import annotations

import re

import pytest
from PySide6.QtWidgets import QLabel

from core.resources import resource
from tests.app.helpers import settle

NUMBER = re.compile(r"−?\d+\.\d+")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_clamp_steps_numbers_are_printed_by_the_inspector(blocklab_open, language):
    window = blocklab_open(resource("lessons", "generations.json"), language).window
    window.presentation.enter(full_screen=False)
    window.resize(1024, 768)
    try:
        window.lessons.go(window.lessons.lesson.step_index("divergence"))
        inspector = window.inspector
        settle(lambda: inspector.isVisible())
        caption = window.findChild(QLabel, "lessonCaption").text()
        numbers = NUMBER.findall(caption)
        assert len(numbers) == 2, caption
        explanation = inspector.explanation.toPlainText()
        model = inspector.model
        shown_cell = model.data(model.index_of(4, 7))
        for number in numbers:
            assert number in explanation, (number, explanation)
            assert number == shown_cell
    finally:
        window.presentation.leave()
