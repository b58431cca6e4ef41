"""The pytest plugin is opt-in: installing Block Lab loads it into every pytest run of that
environment, so loading it must change nothing for a run that does not use its fixtures —
no Qt, no Block Lab package (`app` and `core` are names other projects use), no environment
variable, no hook or command-line option. (tests/test_packaging.py runs a stranger's project.)"""
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PROBE = r"""
import json, os, sys
env, modules = dict(os.environ), set(sys.modules)
import {module} as plugin
print(json.dumps({{
    "imported": sorted(set(sys.modules) - modules),
    "env_changed": sorted(k for k in set(env) | set(os.environ) if env.get(k) != os.environ.get(k)),
    "hooks": sorted(name for name in vars(plugin) if name.startswith("pytest_")),
    "fixtures": sorted(name for name, value in vars(plugin).items() if hasattr(value, "_fixture_function_marker")
                       or type(value).__name__ == "FixtureFunctionDefinition"),
}}))
"""


def load(module: str) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "QT_QPA_PLATFORM"}
    result = subprocess.run([sys.executable, "-c", PROBE.format(module=module)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def top_level(modules: list[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_loading_the_plugin_imports_only_pytest_and_changes_no_environment():
    loaded = load("pytest_blocklab")
    assert not top_level(loaded["imported"]) & {"PySide6", "shiboken6", "pyqtgraph", "numpy", "app", "core",
                                                 "resources", "main"}
    assert loaded["env_changed"] == []
    assert loaded["hooks"] == []                          # no pytest_addoption, pytest_configure …
    assert loaded["fixtures"] == ["blocklab_open", "blocklab_window"]


def test_the_driver_module_loaded_as_a_plugin_imports_no_qt_either():
    """`-p app.testing`, or an install made before the entry point moved, loads app.testing itself."""
    loaded = load("app.testing")
    assert not top_level(loaded["imported"]) & {"PySide6", "shiboken6", "pyqtgraph"}
    assert loaded["env_changed"] == []
    assert loaded["hooks"] == []
    assert loaded["fixtures"] == ["blocklab_open", "blocklab_window"]


def test_the_entry_point_names_the_plugin_module():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["pytest11"] == {"blocklab": "pytest_blocklab"}
    assert "pytest_blocklab" in project["tool"]["setuptools"]["py-modules"]
