"""Write the generations lab's preset blocks as scenario files: resources/scenarios/gen-<id>.json,
one per generation of the seed's table (original, gpt2, llama, anchor, divergence).

Each file is `core.labs.generations.preset(id)` saved with `save_scenario`: the default block's
tokens and inputs, comparable weights, at lesson size. The lesson `generations` opens them.
The output is byte-for-byte the same on every run.

    python tools/make_generation_presets.py            # (re)write the five files
    python tools/make_generation_presets.py --check    # exit 1 if a shipped file differs from what would be written
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.formats.scenario import save_scenario  # noqa: E402
from core.labs.generations import GENERATIONS, preset  # noqa: E402

SHIPPED = ROOT / "resources" / "scenarios"


def file_name(generation: str) -> str:
    return f"gen-{generation}.json"


def write(folder: Path) -> list[Path]:
    """Write every preset into `folder`; the paths written."""
    written = []
    for generation in GENERATIONS:
        path = folder / file_name(generation)
        save_scenario(preset(generation), path)
        written.append(path)
    return written


def differing(folder: Path = SHIPPED) -> list[str]:
    """The preset files in `folder` that are missing or differ from what `write` produces."""
    with tempfile.TemporaryDirectory() as temporary:
        fresh = write(Path(temporary))
        return [path.name for path in fresh
                if not (folder / path.name).exists() or (folder / path.name).read_bytes() != path.read_bytes()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the shipped files instead of writing")
    args = parser.parse_args(argv)
    if not args.check:
        for path in write(SHIPPED):
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    stale = differing()
    if stale:
        print(f"differ from what tools/make_generation_presets.py writes: {', '.join(stale)}", file=sys.stderr)
        return 1
    print("the shipped preset files are what tools/make_generation_presets.py writes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
