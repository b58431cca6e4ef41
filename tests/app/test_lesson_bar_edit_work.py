"""Issue 13: what an edit costs the lesson bar — a step's answer, hidden until the learner asks
for it, is not worded on every edit; shown, it follows the edits. Counted, never timed."""
from PySide6.QtWidgets import QLabel, QPushButton

from tests.app.test_lessons import bar, go_to, r45  # noqa: F401 (the fixtures: the bar on the R45 lesson)


def test_a_hidden_answer_is_worded_only_when_shown(bar, monkeypatch):
    lessons = bar.controller
    session = lessons.session
    go_to(lessons, "relu-residual")
    step = lessons.step
    answer = bar.findChild(QLabel, "lessonAnswer")
    rendered = []
    plain = type(step).render
    monkeypatch.setattr(type(step), "render",
                        lambda self, part, *args: rendered.append(part) or plain(self, part, *args))
    for value in (2.0, -1.5, 0.25):
        assert session.set_value("W_in", (0, 0), value)
    assert "caption" in rendered and "question" in rendered
    assert "answer" not in rendered and not answer.isVisible()           # hidden: never worded
    bar.findChild(QPushButton, "lessonShowAnswer").click()
    assert answer.isVisible() and answer.text() == plain(step, "answer", "en", session.trace)
    rendered.clear()
    assert session.set_value("W_in", (0, 0), 3.0)                         # shown: it follows the edit
    assert rendered.count("answer") == 1
    assert answer.text() == plain(step, "answer", "en", session.trace)
