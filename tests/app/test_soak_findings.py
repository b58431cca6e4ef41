"""What `tools/soak.py` found, each reproduced by the smallest test that shows it."""
from __future__ import annotations

from tests.app.helpers import show


def test_a_wide_ffn_costs_no_number_items_in_the_hidden_unit_maps(qtbot, session):
    """Soak, seed 1: typing 300 into d_ff left 3 × T × 300 hidden pg.TextItems in the hidden-unit
    maps (numbers are shown only up to 16 units), kept for good: +580 MB and 36 s per action
    after a few such edits. Items are made only for numbers that may be shown."""
    from app.explorer.plots.hidden import HiddenUnitsTab
    tab = show(qtbot, HiddenUnitsTab(session), 700, 400)
    before = [len(heatmap.numbers.items) for heatmap in tab.maps.values()]
    assert session.set_config(d_ff=300)
    tab.refresh()
    assert [len(heatmap.numbers.items) for heatmap in tab.maps.values()] == before
    assert session.set_config(d_ff=8)            # numbered again: every cell has its number
    tab.refresh()
    T = len(session.tokens)
    shown = next(iter(tab.maps.values())).numbers.shown_items()
    assert len(shown) in (0, T * 8)
    positions = {(round(item.pos().x(), 2), round(item.pos().y(), 2)) for item in shown}
    assert len(positions) == len(shown)           # each on its own cell
