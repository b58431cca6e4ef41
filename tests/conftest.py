import os
import sys
from pathlib import Path

# Set before anything imports Qt: the tests never need a screen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SCENARIOS = ROOT / "resources" / "scenarios"
