"""The compiled Chinese translation matches its JSON sources."""
import subprocess
import sys

from tests.conftest import ROOT


def test_qm_is_up_to_date():
    result = subprocess.run([sys.executable, "tools/build_translations.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
