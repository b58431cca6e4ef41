"""Block Lab installs like a real package: the end-to-end packaging test (about 20 s, marked slow).

The wheel is built from a clean copy of the sources (no stale build/ folder can leak into it),
installed without `-e` into a fresh virtual environment, and run from a folder outside the
checkout, so nothing can be found through the current directory or the checkout: scenarios,
lessons and translations must come from the installed package data.
"""
import json
import os
import shutil
import site as sitepackages
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

# What a clean clone holds that the build must not need or ship.
NOT_BUILT = {".git", ".ci", "build", "dist", "tests", "docs", "tools", "out", ".hypothesis", ".benchmarks",
             ".pytest_cache", "__pycache__"}


def _run(command: list, cwd: Path, timeout: int = 180, **env) -> subprocess.CompletedProcess:
    clean = {key: value for key, value in os.environ.items()
             if key not in ("PYTHONPATH", "QT_QPA_PLATFORM", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST")}
    return subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**clean, **env})


def _ignore_at_top(folder: str, names: list[str]) -> set[str]:
    if Path(folder) == ROOT:
        return {name for name in names if name in NOT_BUILT or name.endswith(".egg-info")}
    return {name for name in names if name == "__pycache__" or name.endswith(".pyc")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(wheel, the venv's python, its site-packages, a folder outside the checkout)."""
    base = tmp_path_factory.mktemp("packaging")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=_ignore_at_top)
    built = _run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation",
                  "-w", base / "wheels"], cwd=source)
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = (base / "wheels").glob("blocklab-*.whl")
    venv = base / "venv"
    made = _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv], cwd=base)
    assert made.returncode == 0, made.stderr
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=base)
                .stdout.strip())
    if sys.prefix != sys.base_prefix:
        # These tests run in a virtual environment: --system-site-packages shows the new one the
        # base Python's packages, not this environment's; list those after the venv's own.
        (site / "outer-environment.pth").write_text("\n".join(sitepackages.getsitepackages()) + "\n")
    # The venv uses this environment's pip, NumPy, PySide6 … and only its own Block Lab.
    done = _run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--force-reinstall", wheel], cwd=base)
    assert done.returncode == 0, done.stdout + done.stderr
    away = base / "elsewhere"
    away.mkdir()
    return wheel, python, site, away


def test_the_wheel_holds_the_code_scenarios_lessons_and_translations(installed):
    wheel = installed[0]
    names = set(zipfile.ZipFile(wheel).namelist())
    code = {path.relative_to(ROOT).as_posix() for package in ("app", "core")
            for path in (ROOT / package).rglob("*.py") if "__pycache__" not in path.parts}
    assert code and code <= names, sorted(code - names)          # every subpackage, not just the top
    data = {path.relative_to(ROOT).as_posix() for pattern in ("scenarios/*.json", "lessons/*.json", "i18n/*.qm",
                                                              "i18n/*/*.json", "models/*")
            for path in (ROOT / "resources").glob(pattern)}
    assert {"resources/scenarios/block-default.json", "resources/lessons/c4-ffn.json",
            "resources/i18n/blocklab_zh.qm"} <= data
    assert data <= names, sorted(data - names)
    assert {"main.py", "pytest_blocklab.py", "resources/__init__.py"} <= names
    assert not [name for name in names if name.startswith(("tests/", "tools/", "docs/"))]
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("resources/i18n/blocklab_zh.qm") == (ROOT / "resources/i18n/blocklab_zh.qm").read_bytes()
        [entry_points] = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
        entries = archive.read(entry_points).decode()
    assert "blocklab = main:main" in entries and "blocklab = pytest_blocklab" in entries


def test_the_installed_command_traces_a_shipped_scenario_from_anywhere(installed, capsys):
    _, python, site, away = installed
    blocklab = python.parent / ("blocklab.exe" if os.name == "nt" else "blocklab")
    scenario = site / "resources" / "scenarios" / "r45-ffn.json"
    result = _run([blocklab, "trace", scenario], cwd=away)
    assert result.returncode == 0, result.stderr
    trace = json.loads(result.stdout)
    assert trace["format"] == "blocklab-trace"
    assert trace["hooks"]["hook_mlp_out"][0][:2] == pytest.approx([0.585353, 0.324795], abs=1e-6)  # the seed's f
    import main                                      # the checkout's command, in this process
    assert main.main(["trace", str(ROOT / "resources" / "scenarios" / "r45-ffn.json")]) == 0
    assert result.stdout == capsys.readouterr().out

    helped = _run([blocklab, "--help"], cwd=away)
    assert helped.returncode == 0 and "usage: blocklab" in helped.stdout and "trace" in helped.stdout


def test_the_installed_copy_finds_its_data_and_imports_nothing_from_the_checkout(installed):
    """Every module of app/ and core/ imports from the venv (an editable install elsewhere must not
    fill a gap), the resources are the package's, and the Chinese translation loads."""
    _, python, site, away = installed
    probe = r"""
import json, pkgutil, sys
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication
import app, core, main, pytest_blocklab, resources
for package in (app, core):
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        __import__(module.name)
from core.resources import default_scenario, lessons_dir
from core.formats.lesson import list_lessons
from app import i18n
application = QApplication([])
i18n.install("zh")
print(json.dumps({
    "files": sorted(m.__file__ for n, m in list(sys.modules.items())
                    if n.split(".")[0] in ("app", "core", "resources", "main", "pytest_blocklab")
                    and getattr(m, "__file__", None)),
    "default": str(default_scenario()),
    "lessons": [lesson_id for lesson_id, _title, _path in list_lessons(lessons_dir())],
    "chinese": QCoreApplication.translate("launch", "Block Lab hit a bug"),
}))
"""
    result = _run([python, "-c", probe], cwd=away, QT_QPA_PLATFORM="offscreen")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    outside = [file for file in found["files"] if not Path(file).is_relative_to(site)]
    assert not outside
    assert len(found["files"]) > 40
    assert Path(found["default"]) == site / "resources" / "scenarios" / "block-default.json"
    assert {"c4-ffn", "r45-ffn-residual-norm"} <= set(found["lessons"])
    assert found["chinese"] == "Block Lab 遇到了一个错误"


STRANGER_TEST = '''
import os
import sys

import app
from app.util import helper


def test_my_own_app_package_is_the_one_imported(request):
    assert request.config.pluginmanager.get_plugin("blocklab") is not None     # loaded, yet:
    assert app.MINE and helper() == 2
    assert not [name for name in sys.modules if name.startswith(("PySide6", "shiboken6", "core"))]
    assert "QT_QPA_PLATFORM" not in os.environ
'''

TESTER_TEST = '''
def test_relu_zeroes_a_negative_unit(blocklab_window):
    lab = blocklab_window
    lab.set_weight("W_in", (0, 0), "-3")
    assert lab.trace("mlp.hook_pre")[0, 0] < 0 and lab.trace("mlp.hook_post")[0, 0] == 0
'''


def test_the_pytest_plugin_leaves_a_strangers_session_alone_and_serves_a_tester(installed):
    """Another project, with an `app` package of its own, runs its tests in the environment
    where Block Lab is installed: the plugin is loaded but changes nothing (pytest-qt, which
    imports Qt when it starts, is switched off there). A tester's project gets the fixture."""
    _, python, _, away = installed
    stranger = away / "stranger"
    (stranger / "app").mkdir(parents=True)
    (stranger / "app" / "__init__.py").write_text("MINE = True\n")
    (stranger / "app" / "util.py").write_text("def helper():\n    return 2\n")
    (stranger / "pytest.ini").write_text("[pytest]\n")
    (stranger / "test_mine.py").write_text(STRANGER_TEST)
    result = _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:pytest-qt"], cwd=stranger)
    assert result.returncode == 0, result.stdout + result.stderr

    tester = away / "tester"
    tester.mkdir()
    (tester / "pytest.ini").write_text("[pytest]\nqt_api = pyside6\n")
    (tester / "test_block.py").write_text(TESTER_TEST)
    result = _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=tester, QT_QPA_PLATFORM="offscreen")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
