"""What each lab step's figure needs on a projector, and whether it is all on screen now.

One function per kind of lab page returns what of its figure is out of sight without scrolling
(plots' axes with their tick labels and titles, the drawing's controls, the generations map's
cards and details), using tests/app/fit_helpers.py; CHECKS says which lesson step shows which.
`figure_whole(window, at)` is the presentation walk's check (tests/app/present_walk.py), reported
by tests/app/test_lab_fit.py.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QLabel, QPushButton

from tests.app.fit_helpers import hidden_axes, hidden_part


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


def figure_whole(window, at) -> list[str]:
    """The step's figure check (CHECKS), if its step has one: what of the figure is hidden."""
    check = CHECKS.get((at.lesson.id, at.step.id))
    return check(window) if check is not None else []
