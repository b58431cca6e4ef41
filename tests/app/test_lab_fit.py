"""A projector shows a lab step whole: at 1024×768 (and 1920×1080 at 150 %), in presentation
mode, in Chinese and in English, the figure a step's caption talks about is on screen without
scrolling: every plot's axes with their tick labels and titles, every control of the drawing;
and no page scrolls at any step (what lies past a page's edge is not seen on a projector:
fit_helpers.scrolling_pages, with the pages that may scroll listed in fit_helpers.MAY_SCROLL).

One window per configuration walks every step of the shipped lessons, once for both rules;
the lab steps have a check of what must be visible (CHECKS, with tests/app/fit_helpers.py).
Each rule and configuration is one test that reports every failure (lesson step, what is
hidden) in one message.
"""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QLabel, QPushButton

from core.formats.lesson import list_lessons, load_lesson
from core.resources import lessons_dir
from tests.app.fit_helpers import hidden_axes, hidden_item, hidden_part, scrolling_pages, sideways_tables
from tests.app.readability import Config, close, open_presenting

pytestmark = pytest.mark.window

CONFIGS = (Config(1024, 768, 1.0, "zh"), Config(1024, 768, 1.0, "en"),
           Config(1920, 1080, 1.5, "zh"), Config(1920, 1080, 1.5, "en"))


# --- the checks, one per kind of page: each returns what is out of sight ---------------------------
def _xor(window):
    return window.labs["xor"]


def naive_whole(window) -> list[str]:
    part = _xor(window).part("naive")
    problems = []
    bar = part.controls_scroll.verticalScrollBar()
    if bar.maximum() > 0:
        problems.append(f"the controls' column scrolls ({bar.maximum()} px hidden)")
    for name, plot in (("MSE curve", part.curve_plot), ("landscape", part.landscape_plot)):
        view = part.curve_view if plot is part.curve_plot else part.landscape_view
        problems += hidden_axes(view, plot, window, name)
    problems += hidden_axes(part.landscape_view, part.landscape_bar, window, "landscape colour bar")
    return problems


def failure_whole(window) -> list[str]:
    part = _xor(window).part("failure")
    return [p for p in (hidden_part(part.proof_label, window), hidden_part(part.to_ffn_button, window)) if p]


def diagram_whole(window) -> list[str]:
    diagram = _xor(window).part("ffn").diagram
    problems = [p for p in [hidden_part(diagram, window)] + [hidden_part(spin, window) for spin in diagram.spins.values()]
                if p]
    spins = list(diagram.spins.values())
    for i, spin in enumerate(spins):
        for other in spins[i + 1:]:
            if spin.geometry().intersects(other.geometry()):
                problems.append(f"{spin.objectName()} overlaps {other.objectName()}")
        for name, rect in diagram._geometry.items():
            if QRectF(spin.geometry()).intersects(rect):
                problems.append(f"{spin.objectName()} covers the node {name}")
    return problems


def bias_whole(window) -> list[str]:
    part = _xor(window).part("bias")
    problems = hidden_axes(part.bias_view, part.bias_outputs_plot, window, "each sentence's ŷ") \
        + hidden_axes(part.bias_view, part.bias_mse_plot, window, "MSE")
    problems += [p for p in (hidden_part(part.bias_slider, window), hidden_part(part.flip_label, window)) if p]
    # the legend names the curves: it must not lie on them
    legend = part.bias_legend.sceneBoundingRect()
    for curve in part.bias_curves:
        if not curve.isVisible():
            continue
        xs, ys = curve.getData()
        view_box = part.bias_outputs_plot.getViewBox()
        for x, y in zip(xs, ys):
            if legend.contains(view_box.mapViewToScene(pg.Point(float(x), float(y)))):
                problems.append(f"the legend covers the curve {curve.name()} at b = {x:.2f}")
                break
    return problems


def neurons_whole(window) -> list[str]:
    part = _xor(window).part("neurons")
    problems = []
    for j, plot in enumerate(part.map_plots):
        problems += hidden_axes(part.maps_view, plot, window, f"neuron {j + 1}'s map")
    problems += hidden_axes(part.maps_view, part.maps_bar, window, "the maps' colour bar")
    for label in part.findChildren(QLabel):
        if label.isVisible() and label.text():
            problem = hidden_part(label, window)
            if problem:
                problems.append(problem)
    return problems


def compute_whole(window) -> list[str]:
    part = _xor(window).part("compute")
    return [p for p in [hidden_part(part.expansion_label, window)]
            + [hidden_part(b, window) for b in part.findChildren(QPushButton)] if p]


def _ffn(window):
    return window.labs["ffn-page"]


def misconceptions_whole(window) -> list[str]:
    part = _ffn(window).misconceptions
    problems = hidden_axes(part.first_widget, part.first_plot, window, "token 1's plot") \
        + hidden_axes(part.late_widget, part.late_plot, window, "the later token's plot")
    for widget in (part.claim1, part.claim2, part.claim3, part.summary1, part.slider, part.go_shuffle):
        problem = hidden_part(widget, window)
        if problem:
            problems.append(problem)
    return problems


def width_whole(window) -> list[str]:
    part = _ffn(window).width_part
    return hidden_axes(part.plot_widget, part.plot, window, "perplexity against d_ff")


def shapes_whole(window) -> list[str]:
    part = _ffn(window).shapes
    return [p for p in (hidden_part(part.canvas, window), hidden_part(part.small, window)) if p]


def shuffle_whole(window) -> list[str]:
    part = _ffn(window).shuffle
    return [p for p in (hidden_part(part.button, window), hidden_part(part.ffn_table, window),
                        hidden_part(part.attention_table, window)) if p]


def _generations(window):
    return window.labs["generations"]


def every_plot_whole(part, window) -> list[str]:
    """Every plot shown on a part: its axes and title inside the part's visible room."""
    problems = []
    for view in part.findChildren(pg.GraphicsView):
        if not view.isVisible():
            continue
        plots = [item for item in view.scene().items() if isinstance(item, pg.PlotItem) and item.isVisible()]
        for plot in plots:
            problems += hidden_axes(view, plot, window, f"{view.objectName()} plot {plots.index(plot) + 1}")
    return problems


def generations_plots_whole(name):
    def check(window) -> list[str]:
        part = getattr(_generations(window), name)
        return every_plot_whole(part, window) or ([] if part.findChildren(pg.GraphicsView)
                                                  else [f"{name}: no plot found"])
    check.__name__ = f"{name}_plots_whole"
    return check


def map_whole(window) -> list[str]:
    """The generations map: every card, every row and column title and the details below, whole."""
    part = _generations(window).table
    widgets = [*part.cards.values(), *part.column_heads.values(), *part.row_heads.values(), part.details]
    problems = [p for p in (hidden_part(widget, window) for widget in widgets) if p]
    # pointing at any card shows it whole in the details' room, as it is now (nothing moves)
    room = part.details.height()
    for key, card in part.cards.items():
        part._point(*key, True)
        needed = part._measure.heightForWidth(part.details.width())
        part._point(*key, False)
        if needed > room:
            problems.append(f"pointing at {card.objectName()}: its text needs {needed} px, the details have {room}")
    return problems


def parameters_whole(window) -> list[str]:
    part = _generations(window).parameters
    return [p for p in (hidden_part(part.counts, window), hidden_part(part.widths, window)) if p]


def ablation_whole(window) -> list[str]:
    part = window.labs["model"].part("ablation")
    return [p for p in (hidden_part(part.table, window), hidden_part(part.measure, window)) if p]


def model_neurons_whole(window) -> list[str]:
    part = window.labs["model"].part("neurons")
    problems = hidden_axes(part.heatmap, part.heatmap.plot, window, "neurons × characters")
    problems += [p for p in [hidden_part(part.groups, window)] if p]
    text = part.view.text                 # the character the neuron is largest on, on screen
    first, last, _total = text.band()
    if text.focus is None or not first <= text._row_of(text.focus) + 1 <= last:
        problems.append(f"the neuron's largest character ({text.focus}) is not in the lines shown {first}–{last}")
    snippets = part.snippets              # whole snippets only, at least the strongest
    if part.state.snippets() and not 1 <= snippets.shown() == len(snippets.arrows()):
        problems.append(f"{snippets.shown()} snippets shown")
    problems += [f"snippet {k + 1} is cut at the list's bottom edge" for k, arrow in enumerate(snippets.arrows())
                 if arrow.bottom() >= snippets.height()]
    return problems


def compare_whole(window) -> list[str]:
    part = _generations(window).compare
    problems = []
    for k, (view, plot) in enumerate(zip(part.map_views, part.map_plots)):
        problems += hidden_axes(view, plot, window, f"map {'A B A−B'.split()[k]}")
    table = part.table
    problem = hidden_part(table, window)
    if problem:
        problems.append(problem)
    viewport = table.viewport().rect()
    chosen = table.visualRect(table.model().index(table.currentRow(), 0))
    if not viewport.contains(chosen):
        problems.append(f"the chosen hook's row {table.currentRow()} is not in the table's view")
    cut = [r for r in range(table.rowCount()) if viewport.intersects(table.visualRect(table.model().index(r, 0)))
           and not viewport.contains(table.visualRect(table.model().index(r, 0)))]
    if cut:
        problems.append(f"rows {cut} of the table are cut in half")
    return problems


CHECKS = {
    ("c4-ffn", "question"): naive_whole, ("c4-ffn", "naive"): naive_whole,
    ("c4-ffn", "failure"): failure_whole,
    ("c4-ffn", "relu"): diagram_whole, ("c4-ffn", "collapse"): diagram_whole, ("c4-ffn", "gelu"): diagram_whole,
    ("c4-ffn", "bias"): bias_whole,
    ("c4-ffn", "compute"): compute_whole,
    ("c4-ffn", "neurons"): neurons_whole,
    ("c4-ffn", "width"): width_whole, ("c4-ffn", "shapes"): shapes_whole, ("c4-ffn", "shuffle"): shuffle_whole,
    ("c4-ffn", "misconceptions"): misconceptions_whole,
    ("generations", "map"): map_whole,
    ("generations", "compare"): compare_whole,
    ("generations", "growth"): generations_plots_whole("residual"),
    ("generations", "placement"): generations_plots_whole("placement"),
    ("generations", "parameters"): parameters_whole,
    ("generations", "sink"): generations_plots_whole("sink"),
    ("generations", "gain"): generations_plots_whole("gain"),
    ("generations", "overflow"): generations_plots_whole("overflow"),
    ("model-neurons", "text-heatmap"): model_neurons_whole, ("model-neurons", "ranked"): model_neurons_whole,
    ("model-neurons", "control"): model_neurons_whole, ("model-neurons", "heatmap"): model_neurons_whole,
    ("model-neurons", "ablation"): ablation_whole,
}


_walked: dict[str, tuple[list[str], list[str], int]] = {}


def _walk(qapp, config: Config) -> tuple[list[str], list[str], int]:
    """One window per configuration walks every step: the step's check of its figure (CHECKS),
    and that no page scrolls (fit_helpers.scrolling_pages). Walked once for both tests:
    (figures hidden, pages scrolling, steps walked)."""
    if config.name in _walked:
        return _walked[config.name]
    from app.widgets.worker import settle
    hidden, scrolling, steps = [], [], 0
    lessons = sorted({path.stem for _id, _title, path in list_lessons(lessons_dir())})
    window = open_presenting(qapp, config, lessons_dir() / f"{lessons[0]}.json")
    try:
        for lesson_id in lessons:
            lesson = load_lesson(lessons_dir() / f"{lesson_id}.json")
            for position, step in enumerate(lesson.steps):
                if window.lessons.lesson is None or window.lessons.lesson.path != lesson.path:
                    window.open_lesson(lesson.path)
                window.lessons.go(position)
                settle(qapp)
                for _ in range(3):
                    qapp.processEvents()
                steps += 1
                where = f"  [{config.name}, {lesson_id} step {position + 1} {step.id}] "
                check = CHECKS.get((lesson_id, step.id))
                if check is not None:
                    hidden += [where + problem for problem in check(window)]
                scrolling += [where + problem for problem in scrolling_pages(window)]
                scrolling += [where + problem for problem in sideways_tables(window)]
    finally:
        close(window)
    _walked[config.name] = (hidden, scrolling, steps)
    return _walked[config.name]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.name)
def test_each_lab_step_shows_its_figure_whole_in_presentation_mode(qapp, config):
    problems = _walk(qapp, config)[0]
    assert not problems, f"{len(problems)} figures not wholly on screen:\n" + "\n".join(problems)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.name)
def test_no_page_needs_scrolling_in_presentation_mode(qapp, config):
    """A projector shows a page whole: no step, in both languages and at both sizes, shows a page
    whose scroll bar has a range (fit_helpers.MAY_SCROLL lists the pages that may scroll, with
    the reason)."""
    problems, steps = _walk(qapp, config)[1:]
    expected = sum(len(load_lesson(path).steps) for _id, _title, path in list_lessons(lessons_dir()))
    assert steps == expected > 0, f"walked {steps} of the {expected} steps"
    assert not problems, f"{len(problems)} pages scroll:\n" + "\n".join(problems)


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
