"""A teacher's 1024×768 projector with the interface zoom at 150 %, presenting: the R45 lesson's
block steps (the weight editor beside the plots, the inspector on the right) fit the window, with
no table scrolling and the window no taller or wider than the projector (the presentation walk
does not visit this configuration; tests/app/test_fit_150_on_1024x768.py does the same for the
C4 lesson).

The weight editor's controls are tested alone at the room the step leaves them; the window test
walks the fitted steps with the walk's own checks and the window's size."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QWidget

from app.explorer.config_panel import ConfigPanel
from app.explorer.weights_editor import WeightEditor
from app.widgets.appearance import appearance
from tests.app.helpers import make_session, settle


def _editor(qtbot, height: int) -> WeightEditor:
    """W_out's editor 258 px wide (its width on the shelf at R45 step 3), `height` px high."""
    editor = WeightEditor(make_session())
    qtbot.addWidget(editor)
    editor.tensor_combo.setCurrentIndex(editor.tensor_combo.findData("W_out"))
    editor.resize(258, height)
    editor.show()
    qtbot.waitExposed(editor)
    return editor


def test_short_of_height_the_cell_s_name_then_its_spin_box_step_aside(qtbot, projector):
    """R45 step 3: W_out's six rows and the cell's controls made the window 67–88 px taller than
    the projector. Presenting, short of height, the cell's name (the table frames the cell, its
    labels name it) and then the spin box (the cell shows the value and takes a typed one) step
    aside; the table's six rows and the slider stay. With the room, both are back."""
    projector("zh")
    editor = _editor(qtbot, 300)
    controls = editor.cell_controls
    settle(lambda: editor.height() == 300 or editor.height() == editor.minimumSizeHint().height())
    assert editor.height() <= 300                         # the editor does not grow for its controls
    assert not editor.cell_label.isVisible() and not editor.value_spin.isVisible()
    assert editor.value_slider.isVisible() and editor.table.verticalScrollBar().maximum() == 0
    controls_least = controls.height()
    label = editor.cell_label.sizeHint().height() + controls.layout().spacing()
    editor.resize(258, editor.height() + editor.value_spin.sizeHint().height() + controls.layout().spacing())
    settle(lambda: editor.value_spin.isVisible())
    assert not editor.cell_label.isVisible()              # the name first, the spin box next
    editor.resize(258, editor.height() + label)
    settle(lambda: editor.cell_label.isVisible() and editor.value_spin.isVisible())
    assert controls.height() > controls_least
    editor.resize(258, 300)
    settle(lambda: not editor.cell_label.isVisible() and not editor.value_spin.isVisible())


def test_at_the_desk_the_controls_never_step_aside(qtbot):
    """At the desk (and at 100 % with the room) the editor keeps every control, as before."""
    editor = _editor(qtbot, 200)
    settle(lambda: editor.cell_label.isVisible())
    assert editor.value_spin.isVisible() and editor.value_slider.isVisible()
    assert editor.cell_controls.minimumSizeHint().height() == editor.cell_controls.sizeHint().height()
    appearance().set_presenting(True)
    editor.resize(258, 400)                              # the room for every control
    settle(lambda: editor.cell_label.isVisible() and editor.value_spin.isVisible())


def _options(qtbot) -> tuple[QWidget, ConfigPanel]:
    """The block options in a box that sizes them as asked (as the window's column does)."""
    host = QWidget()
    qtbot.addWidget(host)
    font = host.font()
    font.setPointSizeF(font.pointSizeF() * appearance().scale)       # the window's text at this zoom
    host.setFont(font)
    panel = ConfigPanel(make_session(), host)
    host.resize(800, 400)
    panel.resize(panel.sizeHint())
    host.show()
    qtbot.waitExposed(host)
    return host, panel


@pytest.mark.parametrize("language", ["en", "zh"])
def test_short_of_width_the_block_options_rows_names_step_aside(qtbot, projector, language):
    """R45 step 5: beside the plots and the inspector, the block options' least width (a row's
    name and the widest option, GELU (tanh, as in GPT-2)) made the window 30–41 px wider than the
    projector. Presenting, short of width, the rows' names step aside (the options name
    themselves); every option stays whole. With the room, the names are back."""
    projector(language)
    _host, panel = _options(qtbot)
    names = (panel.activation_label, panel.norm_label, panel.placement_label, panel.mask_label)
    wide = panel.sizeHint().width()
    least = panel.minimumSizeHint().width()
    assert least < wide - 60                              # the names' column asks for no width
    panel.resize(least, panel.height())
    settle(lambda: not any(name.isVisible() for name in names) and panel.activation.x() < names[0].width())
    for box in (panel.activation, panel.norm, panel.placement, panel.mask, panel.eps):
        assert box.isVisible() and box.width() >= box.minimumSizeHint().width(), box.objectName()
    assert panel.sizeHint().width() == wide               # the width that shows them is still asked for
    panel.resize(wide, panel.height())
    settle(lambda: all(name.isVisible() for name in names))


def test_at_the_desk_the_block_options_keep_their_rows_names(qtbot):
    """At the desk the rows' names never step aside: short of width they go above their fields,
    and the least width is theirs so placed (tests/app/test_desk_fits_at_zoom.py at 150 %)."""
    _host, panel = _options(qtbot)
    panel.resize(200, panel.height())
    settle(lambda: panel.width() == 200)
    assert panel.activation_label.isVisible() and panel.mask_label.isVisible()
    settle(lambda: panel.activation.y() > panel.activation_label.y())     # under its name
    assert panel.minimumSizeHint().width() == panel.layout().minimumSize().width()


# --- the lesson's steps in the presenting window ----------------------------------------------------
FITTED_STEPS = ("b0", "b1", "relu-residual", "softmax", "wo-zero")


@pytest.mark.window
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_r45_lesson_s_fitted_steps_in_the_presenting_window(qapp, language):
    """Step 2: W_in's table on the shelf was 38 px too narrow and cut a row (the inspector kept
    the width); step 3: the window grew 67–88 px for W_out's rows and the cell's controls; step 5
    (and after it 8 and 9): the window grew 30–41 px for the block options' least width; steps
    8 and 9: the inspector's 5×5 and 5×4 tables were 33 and 78–107 px too narrow (the right-hand
    column at most half the window; step 9: the shelf, the plots and the inspector side by side).
    Presenting, the shelf takes what the inspector can spare, the controls step aside for the
    rows, the right-hand column widens for a whole table and, at step 9, the plots (which the step
    does not name) step aside: no table scrolls and the window stays 1024×768."""
    from tests.app.present_walk import fitted_steps
    from tests.app.readability import Config
    from tests.conftest import ROOT
    problems = fitted_steps(qapp, Config(1024, 768, 1.5, language),
                            ROOT / "resources/lessons/r45-ffn-residual-norm.json", FITTED_STEPS,
                            rules=("scrolling", "figure", "window"))
    assert not problems, "\n".join(problems)


@pytest.mark.window
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_hidden_units_token_axis_title_leaves_the_maps_titles_alone(qapp, language):
    """R45 step 2: beside the weights, the hidden-unit maps are one token high under titles of
    three or four lines, and the token axis's upright title ("token", centred on the axis) was
    drawn over them. Presenting, it is drawn only where it clears the title."""
    from app.widgets.worker import settle as finish_background_work
    from tests.app.readability import Config, close, open_presenting, settle as turns
    from tests.conftest import ROOT
    window = open_presenting(qapp, Config(1024, 768, 1.5, language), ROOT / "resources/lessons/r45-ffn-residual-norm.json")
    try:
        window.lessons.go(1)
        turns(qapp)
        finish_background_work(qapp)
        turns(qapp, 3)
        tab = window.findChild(QWidget, "plotsHiddenTab")
        assert tab.isVisible()
        drawn = 0
        for plot in tab.plots:
            label, title = plot.getAxis("left").label, plot.titleLabel
            if not (plot.isVisible() and label.isVisible() and title.isVisible()):
                continue
            shared = label.sceneBoundingRect().intersected(title.item.sceneBoundingRect())
            margins = label.document().documentMargin() + title.item.document().documentMargin()
            over = shared.width() > margins and shared.height() > margins
            assert not (over and label.opacity() > 0), f"{language}: “{label.toPlainText()}” over the title"
            drawn += 1
        assert drawn >= 2                                 # mlp.hook_pre and mlp.hook_post, both checked
    finally:
        close(window)
