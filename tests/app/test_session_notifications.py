"""The Session tells views about a change once: one `changed` notification per action."""
from __future__ import annotations

from app.session import Change, Session
from core.formats.scenario import load_scenario
from core.resources import scenarios_dir


def _session(qapp) -> Session:
    return Session(load_scenario(scenarios_dir() / "block-default.json"))


def test_a_load_is_one_notification_naming_everything(qapp):
    session = _session(qapp)
    seen = []
    session.changed.connect(seen.append)
    session.load(load_scenario(scenarios_dir() / "r45-ffn.json"))
    assert seen == [Change.ALL]


def test_an_edit_is_one_trace_notification(qapp):
    session = _session(qapp)
    seen = []
    session.changed.connect(seen.append)
    assert session.set_value("W_in", (0, 0), 0.75)
    assert seen == [Change.TRACE]


def test_a_refused_edit_notifies_nothing(qapp):
    session = _session(qapp)
    seen = []
    session.changed.connect(seen.append)
    assert not session.set_value("W_in", (0, 0), float("nan"), "nan")
    assert seen == []


def test_highlight_is_selection_state_and_repeats_are_quiet(qapp):
    session = _session(qapp)
    seen = []
    session.changed.connect(seen.append)
    session.set_highlight(["mlp.hook_post"], [("hook_resid_post", (0, 2))])
    assert seen == [Change.HIGHLIGHT]
    assert session.highlight.hooks == {"mlp.hook_post", "hook_resid_post"}
    assert session.highlight.cells == (("hook_resid_post", (0, 2)),)
    session.set_highlight(["mlp.hook_post"], [("hook_resid_post", (0, 2))])
    assert seen == [Change.HIGHLIGHT]
    session.set_highlight()
    assert seen == [Change.HIGHLIGHT, Change.HIGHLIGHT] and not session.highlight
