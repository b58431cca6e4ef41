"""The compiled Chinese translation matches its JSON sources."""
import importlib.util
import sys

from tests.conftest import ROOT


def test_qm_is_up_to_date(monkeypatch, capsys):
    """`python tools/build_translations.py --check`, run in this process."""
    spec = importlib.util.spec_from_file_location("build_translations", ROOT / "tools" / "build_translations.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    monkeypatch.setattr(sys, "argv", ["build_translations.py", "--check"])
    assert tool.main() == 0, capsys.readouterr().err
