"""The labs' panels: a LabPanel base (base.py) and one package per lab, one widget per part.

Which labs exist, their parts and where their panel classes live is the lab registry's
(core/labs); `build_lab_panel` is how the main window turns a lab id into a panel.
"""
from __future__ import annotations

import importlib

from core.labs import get_lab


def lab_panel_class(lab_id: str) -> type:
    """The panel class the registry names for `lab_id` (UnknownLab if there is no such lab)."""
    lab = get_lab(lab_id)
    module = importlib.import_module(lab.panel_module)
    return getattr(module, lab.panel_class)


def build_lab_panel(lab_id: str, session):
    """A new panel of the lab `lab_id` on `session`."""
    return lab_panel_class(lab_id)(session)
