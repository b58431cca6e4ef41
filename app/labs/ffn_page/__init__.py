"""Lesson C4's FFN page (registry id "ffn-page"), one module per part.

panel.py assembles the tabs; formula, width, shapes (with shape_canvas.py), shuffle,
misconceptions and summary are the parts; source.py is the block the live demonstrations
run on; common.py the shared sizes and helpers.
"""
from app.labs.ffn_page.panel import FfnPagePanel

__all__ = ["FfnPagePanel"]
