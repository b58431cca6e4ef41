"""Files and lessons are data, never code: hostile text is shown as text, nothing is fetched,
unpickled or evaluated (issue 13).

Lesson titles, captions, questions and answers, a scenario's title and its tokens carry HTML
(local and remote images, links, scripts, `javascript:`, CSS `url()`), template- and
Python-looking text and pickle-looking text. Wherever any of it is rendered — labels, tooltips,
message boxes, the text items of every graphics scene (the diagram, pyqtgraph's titles, labels
and legends) — the rendered document holds no image and no link: nothing to load, nothing to
follow. An armed pickle in a sidecar or a tensor file would create a marker file if unpickled."""
from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QTextDocument
from PySide6.QtWidgets import QGraphicsTextItem, QGraphicsView, QLabel, QMessageBox, QWidget

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "resources" / "scenarios"
LESSONS = ROOT / "resources" / "lessons"
PICKLE_LOOKING = "gASVIAAAAAAAAACMAm9zlIwGc3lzdGVtlJOUjAJpZJSFlFKULg=="      # base64 of a pickle


def payloads(canary: Path, marker: Path) -> list[str]:
    return [f'<img src="file://{canary}">',
            '<img src="file:///etc/passwd">',
            '<img src="http://127.0.0.1:9/x.png">',
            '<a href="http://example.com/">click</a>',
            f'<script>open("{marker}", "w")</script>',
            f'<span style="background: url(file://{canary})">css</span>',
            '<a href="javascript:alert(1)">js</a> javascript:alert(1)',
            f"{{{{ __import__('os').system('touch {marker}') }}}}",
            PICKLE_LOOKING]


def tokens(canary: Path) -> list[str]:
    return [f'<img src="file://{canary}">'[:64], '<a href="http://x/">t</a>', "<script>x</script>",
            "{{ __import__('os') }}", "javascript:alert(1)"]


@pytest.fixture
def hostile(tmp_path):
    """A lesson and its scenarios, every piece of text hostile; a canary image; the marker's path."""
    canary = tmp_path / "canary.png"
    image = QImage(400, 400, QImage.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(canary))
    marker = tmp_path / "MARKER"
    text = " ".join(payloads(canary, marker))
    scenario = json.loads((SCENARIOS / "block-default.json").read_text(encoding="utf-8"))
    short = payloads(canary, marker)[0]                   # titles hold at most 120 characters
    assert len(short) <= 120
    scenario["title"] = {"en": short, "zh": short}
    scenario["tokens"] = tokens(canary)
    (tmp_path / "block.json").write_text(json.dumps(scenario), encoding="utf-8")
    shutil.copy(SCENARIOS / "r45-ffn.json", tmp_path / "ffn.json")
    lesson = json.loads((LESSONS / "r45-ffn-residual-norm.json").read_text(encoding="utf-8"))
    lesson["scenarios"] = {"ffn": "ffn.json", "block": "block.json"}
    lesson["title"] = {"en": short, "zh": short}
    for number, step in enumerate(lesson["steps"]):
        title = payloads(canary, marker)[number % len(payloads(canary, marker))][:120]
        step["title"] = {"en": title, "zh": title}
        for part in ("caption", "question", "answer"):
            if part in step or part == "caption":
                step[part] = {"en": text, "zh": text}
    (tmp_path / "lesson.json").write_text(json.dumps(lesson), encoding="utf-8")
    return tmp_path, canary, marker


def loads_or_links(html: str) -> list[str]:
    """What rendering `html` as rich text would load or let a click follow."""
    document = QTextDocument()
    document.setHtml(html)
    found = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            form = fragment.charFormat()
            if form.isImageFormat():
                found.append(f"image {form.toImageFormat().name()}")
            if form.isAnchor() or form.anchorHref():
                found.append(f"link {form.anchorHref()}")
            it += 1
        block = block.next()
    return found


def rendered_as_rich(text: str, text_format) -> bool:
    return text_format == Qt.RichText or (text_format == Qt.AutoText and QtGui.Qt.mightBeRichText(text))


def inert_problems(root: QWidget) -> list[str]:
    """Every label, tooltip and graphics text item under `root` that would load or link something."""
    problems = []
    for label in [*root.findChildren(QLabel), *([root] if isinstance(root, QLabel) else [])]:
        if rendered_as_rich(label.text(), label.textFormat()):
            problems += [f"{label.objectName() or label}: {p}" for p in loads_or_links(label.text())]
        if label.openExternalLinks():
            problems.append(f"{label.objectName()}: opens external links")
    for widget in [root, *root.findChildren(QWidget)]:
        if QtGui.Qt.mightBeRichText(widget.toolTip()):
            problems += [f"tooltip of {widget.objectName()}: {p}" for p in loads_or_links(widget.toolTip())]
    for view in root.findChildren(QGraphicsView):
        scene = view.scene()
        for item in scene.items() if scene is not None else []:
            if isinstance(item, QGraphicsTextItem):
                problems += [f"text item in {view.objectName()}: {p}" for p in loads_or_links(item.toHtml())]
            if QtGui.Qt.mightBeRichText(item.toolTip()):
                problems += [f"item tooltip in {view.objectName()}: {p}" for p in loads_or_links(item.toolTip())]
    return problems


def shown_plain(label: QLabel) -> str:
    if rendered_as_rich(label.text(), label.textFormat()):
        document = QTextDocument()
        document.setHtml(label.text())
        return document.toPlainText()
    return label.text()


def test_the_detector_sees_images_and_links():
    assert loads_or_links('<img src="file:///etc/passwd">') == ["image file:///etc/passwd"]
    assert loads_or_links('<a href="http://x/">x</a>') == ["link http://x/"]
    assert loads_or_links("&lt;img src=x&gt;") == []


def test_hostile_lesson_and_scenario_text_is_shown_never_rendered(qtbot, hostile):
    from app.launch import build_window
    folder, canary, marker = hostile
    _app, window = build_window(folder / "lesson.json", "en")
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    lessons, bar = window.lessons, window.lesson_bar
    assert len(lessons.lesson) > 3
    for index in range(len(lessons.lesson)):
        lessons.go(index)
        if bar.show_answer.isVisible():
            bar.show_answer.click()
        for tab in ("attention", "hidden", "residual", "activation", "mse"):
            window.plots.show_tab(tab)
            qtbot.wait(1)
        assert inert_problems(window) == [], f"step {index + 1}"
        caption = shown_plain(bar.caption)
        assert f'<img src="file://{canary}">' in caption and "javascript:alert(1)" in caption
        assert "{ __import__('os').system(" in caption            # the literal braces, not evaluated
        if bar.question.isVisible():
            written = " ".join(payloads(canary, marker)).replace("{{", "{").replace("}}", "}")   # literal braces
            assert shown_plain(bar.question) == f"Question: {written}"
            assert shown_plain(bar.answer) == written
    assert '<img src="file://' in window.windowTitle()
    assert not marker.exists()
    window.close()


def test_hostile_tokens_in_the_xor_lab_are_text(qtbot, tmp_path):
    from app.labs import build_lab_panel
    from app.session import Session
    from core.formats.scenario import load_scenario
    canary, marker = tmp_path / "canary.png", tmp_path / "MARKER"
    scenario = json.loads((SCENARIOS / "c4-xor.json").read_text(encoding="utf-8"))
    scenario["tokens"] = (tokens(canary) * 2)[:len(scenario["tokens"])]
    scenario["title"] = {"en": payloads(canary, marker)[0], "zh": "x"}
    (tmp_path / "xor.json").write_text(json.dumps(scenario), encoding="utf-8")
    panel = build_lab_panel("xor", Session(load_scenario(tmp_path / "xor.json")))
    qtbot.addWidget(panel)
    panel.resize(1200, 800)
    panel.show()
    for part in panel.lab.parts:
        panel.set_focus(part)
        qtbot.wait(1)
        assert inert_problems(panel) == [], part
    assert not marker.exists()


class Armed:
    """Unpickling this creates the marker file."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_armed_pickles_are_refused_unopened_and_said_in_plain_text(qtbot, tmp_path, monkeypatch):
    from app.launch import build_window
    from app.main_window import MainWindow
    marker = tmp_path / "MARKER"
    armed = np.empty((5, 4), dtype=object)
    armed[:] = Armed(marker)
    assert b"MARKER" in pickle.dumps(armed)                 # the payload is really there
    np.savez(tmp_path / "armed.npz", inputs=armed)
    np.save(tmp_path / "armed.npy", armed, allow_pickle=True)
    scenario = json.loads((SCENARIOS / "block-default.json").read_text(encoding="utf-8"))
    del scenario["inputs"]
    scenario["arrays"] = "armed.npz"
    scenario["title"] = {"en": '<img src="file:///etc/passwd">', "zh": "x"}
    (tmp_path / "<img src=x>.json").write_text(json.dumps(scenario), encoding="utf-8")

    loads = []
    real_load = np.load
    monkeypatch.setattr(np, "load", lambda *a, **k: loads.append(k.get("allow_pickle", False)) or real_load(*a, **k))
    boxes = []

    def answer(box):
        boxes.append((box.objectName(), box.textFormat(), box.text()))
        return QMessageBox.Cancel

    monkeypatch.setattr(QMessageBox, "exec", answer)
    _app, window = build_window(SCENARIOS / "block-default.json", "en")
    assert isinstance(window, MainWindow)
    qtbot.addWidget(window)
    before = window.session.state.inputs.copy()
    assert window.open_file(tmp_path / "<img src=x>.json") is False
    assert boxes and boxes[-1][0] == "fileWarning" and boxes[-1][1] == Qt.PlainText
    assert "pickled data is never loaded" in boxes[-1][2]
    assert window.weight_editor.import_tensor(tmp_path / "armed.npy") is False
    np.testing.assert_array_equal(window.session.state.inputs, before)
    assert not any(loads)                                   # np.load, if used, never with allow_pickle
    assert not marker.exists()
    window.close()


def test_unsaved_and_restore_questions_show_a_file_name_as_text(qtbot, monkeypatch):
    from app import document
    monkeypatch.undo()          # the real ask_unsaved (tests/app/conftest.py answers it with "Discard")
    seen = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: seen.append((box.textFormat(), box.text())) or 0)
    document.ask_unsaved(None, '<img src="file:///etc/passwd">', lesson=False)
    document.ask_restore(None, '<a href="http://x/">x</a>', 0.0)
    assert [form for form, _ in seen] == [Qt.PlainText, Qt.PlainText]
    assert '<img src="file:///etc/passwd">' in seen[0][1]
