"""`core` never imports Qt, pyqtgraph or `app` (DESIGN.md: the engine is pure NumPy/SciPy)."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

from tests.conftest import ROOT

FORBIDDEN = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "PySide2", "app")
CORE = ROOT / "core"


def _is_forbidden(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN)


def test_importing_all_of_core_loads_no_qt_and_no_app():
    script = """
import importlib, json, pkgutil, sys
import core
names = [info.name for info in pkgutil.walk_packages(core.__path__, "core.")]
for name in names:
    importlib.import_module(name)
print(json.dumps({"imported": names, "modules": sorted(sys.modules)}))
"""
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                            timeout=60, env=_clean_env())
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    expected = {f"core.{path.stem}" for path in CORE.glob("*.py") if path.stem != "__init__"}
    assert expected <= set(report["imported"])
    assert {"core.block", "core.formats.scenario", "core.config", "core.functions"} <= set(report["imported"])
    loaded = [name for name in report["modules"] if _is_forbidden(name)]
    assert loaded == []


def _clean_env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONSTARTUP", None)
    return env


def _imported_modules(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            names.append(str(node.args[0].value))
    return names


def test_core_sources_import_nothing_forbidden():
    sources = sorted(CORE.rglob("*.py"))
    assert len(sources) >= 8
    offenders = []
    for path in sources:
        text = path.read_text(encoding="utf-8")
        for module in _imported_modules(ast.parse(text, filename=str(path))):
            if _is_forbidden(module):
                offenders.append(f"{path.name}: {module}")
        for needle in ("import PySide6", "from PySide6", "import shiboken6", "import pyqtgraph",
                       "from pyqtgraph", "from app", "import app"):
            if any(line.strip().startswith(needle) for line in text.splitlines()):
                offenders.append(f"{path.name}: {needle}")
    assert offenders == []


def test_the_scanner_would_catch_an_offender():
    tree = ast.parse("import numpy\nfrom PySide6.QtCore import Qt\nimport app.session as s\n"
                     "def f():\n    import pyqtgraph\n    importlib.import_module('shiboken6')\n")
    found = [module for module in _imported_modules(tree) if _is_forbidden(module)]
    assert sorted(found) == ["PySide6.QtCore", "app.session", "pyqtgraph", "shiboken6"]
    assert not _is_forbidden("apply") and not _is_forbidden("numpy")
