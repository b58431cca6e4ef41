"""Where Block Lab's shipped files live: one place that knows, in a checkout or installed.

The `resources` folder is a package (package data in the wheel), so `importlib.resources`
finds it wherever Block Lab is imported from; nothing builds paths relative to a checkout.
"""
from __future__ import annotations

from importlib import resources as _resources
from pathlib import Path


def resource(*parts: str) -> Path:
    """The path of a shipped file or folder, e.g. resource("scenarios", "block-default.json")."""
    base = _resources.files("resources")
    return Path(str(base.joinpath(*parts)))


def scenarios_dir() -> Path:
    return resource("scenarios")


def lessons_dir() -> Path:
    return resource("lessons")


def i18n_dir() -> Path:
    return resource("i18n")


def default_scenario() -> Path:
    """The block the GUI opens when no file is named."""
    return resource("scenarios", "block-default.json")
