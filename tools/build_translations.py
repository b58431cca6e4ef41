"""Compile resources/i18n/<lang>/*.json into resources/i18n/blocklab_<lang>.qm.

The JSON files are where translators work ({context: {English source: translation}}, one
file per part of the app); Qt reads the compiled .qm. Run after editing any JSON file:

    python tools/build_translations.py            # writes the .qm files
    python tools/build_translations.py --check    # exit 1 if a .qm is out of date
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape

# The sources of this checkout, not core.resources: a tool edits the files it ships with, whichever
# copy of Block Lab is installed (an installed one is a build product).
ROOT = Path(__file__).resolve().parent.parent
I18N = ROOT / "resources" / "i18n"
QT_LANGUAGE = {"zh": "zh_CN"}
LRELEASE_TIMEOUT_S = 120       # lrelease takes well under a second; a stuck one fails, never hangs a test run


def ts_text(language: str) -> str:
    table: dict[str, dict[str, str]] = {}
    for path in sorted((I18N / language).glob("*.json")):
        for context, entries in json.loads(path.read_text(encoding="utf-8")).items():
            table.setdefault(context, {}).update(entries)
    lines = ['<?xml version="1.0" encoding="utf-8"?>', "<!DOCTYPE TS>",
             f'<TS version="2.1" language="{QT_LANGUAGE.get(language, language)}">']
    for context in sorted(table):
        lines.append(f"<context><name>{escape(context)}</name>")
        for source, translation in sorted(table[context].items()):
            lines.append(f"<message><source>{escape(source)}</source>"
                         f"<translation>{escape(translation)}</translation></message>")
        lines.append("</context>")
    lines.append("</TS>")
    return "\n".join(lines) + "\n"


def lrelease() -> str:
    import PySide6
    return str(Path(PySide6.__file__).parent / "lrelease")


def compile_language(language: str, out: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        ts = Path(folder) / f"blocklab_{language}.ts"
        ts.write_text(ts_text(language), encoding="utf-8")
        subprocess.run([lrelease(), "-silent", str(ts), "-qm", str(out)], check=True, timeout=LRELEASE_TIMEOUT_S)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only check that the .qm files are up to date")
    args = parser.parse_args()
    stale = []
    for folder in sorted(p for p in I18N.iterdir() if p.is_dir()):
        target = I18N / f"blocklab_{folder.name}.qm"
        if args.check:
            with tempfile.TemporaryDirectory() as tmp:
                fresh = Path(tmp) / target.name
                compile_language(folder.name, fresh)
                if not target.exists() or target.read_bytes() != fresh.read_bytes():
                    stale.append(target.name)
        else:
            compile_language(folder.name, target)
            print(f"wrote {target.relative_to(ROOT)}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run python tools/build_translations.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
