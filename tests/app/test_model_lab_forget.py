"""The model lab's results of long work (each layer's ranking, the knock-out losses) can be dropped
(`ModelLabPanel.forget_results`: tools/soak.py's checkpoints compare memory in the same state);
the neuron view ranks again when it is next shown, and shows the same groups."""
from __future__ import annotations

from PySide6.QtWidgets import QTableWidget

from app.labs.model import ModelLabPanel
from app.labs.model.state import ModelLabState
from tests.app.helpers import make_session, settle, show
from tests.app.test_model_lab import close, fast, tiny_path, wait_for_cancel, wait_jobs  # noqa: F401  (fixtures)


def test_forgetting_the_rankings_ranks_again_when_the_neurons_are_shown(qtbot, tiny_path, fast):  # noqa: F811
    panel = ModelLabPanel(make_session(), model_path=tiny_path)
    panel.set_focus("neurons")
    show(qtbot, panel, 1000, 700)
    state: ModelLabState = panel.state
    wait_jobs(state)
    assert state.layer in state.stats
    table = panel.findChild(QTableWidget, "modelGroups")
    shown = [table.item(r, 1).text() for r in range(table.rowCount())]
    panel.hide()
    panel.forget_results()
    assert state.stats == {} and state.losses is None and state.rank_job is None
    panel.show()                          # the neuron view catches up: ranks again, in the background
    settle(lambda: state.layer in state.stats, turns=100_000)
    wait_jobs(state)
    assert [table.item(r, 1).text() for r in range(table.rowCount())] == shown
    close(panel)


def test_forgetting_cancels_a_running_ranking(qtbot, tiny_path, monkeypatch):  # noqa: F811
    panel = ModelLabPanel(make_session(), model_path=tiny_path)
    panel.set_focus("neurons")
    show(qtbot, panel, 1000, 700)
    state = panel.state
    monkeypatch.setattr("app.labs.model.state.neuron_stats", wait_for_cancel)
    state.set_layer((state.layer + 1) % state.config.n_layers)
    assert state.rank() is not None       # a ranking that runs until cancelled
    panel.forget_results()
    assert state.rank_job is None and state.stats == {}
    close(panel)
