"""One FreeType face, and one mapping of its file, per font file the interface uses.

Qt 6.11 shares a face between the font engines of every size; when any face's last engine goes,
it empties that cache, setting aside the faces still in use, and the next engine of one of those
opens its file again (a second face, a second mapping: the soak saw each 20 MB Noto Sans CJK
collection mapped 3-5 times). app/widgets/style.pin_font_faces holds an engine of every face the
interface's fonts use, so none of them is ever released and the cache is never emptied."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QFontDatabase, QRawFont

from app.widgets import style

ROOT = Path(__file__).resolve().parents[2]

# Run in a fresh process: the count of mappings must not depend on what earlier tests drew.
PROBE = r'''
import os, sys
from PySide6.QtGui import QFontDatabase, QTextLayout
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.widgets import style
style.follow_appearance(app)              # as every main window does

def mapped():
    counts = {}
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if path.lower().endswith((".ttf", ".ttc", ".otf", ".otc")):
                counts[path] = counts.get(path, 0) + 1
    return counts

def lay_out(points, bold=False, italic=False):
    font = style.with_chinese_fallback(style.font(points, bold))
    font.setItalic(italic)
    layout = QTextLayout("汉字说直 Ag", font)
    layout.beginLayout(); layout.createLine(); layout.endLayout()
    return layout.glyphRuns()

held = lay_out(11.0)                      # engines in use, as the window's widgets hold theirs
lay_out(13.5, bold=True, italic=True)     # a face used once, then its engine goes:
font_id = QFontDatabase.addApplicationFont(min(mapped(), key=os.path.getsize))
QFontDatabase.removeApplicationFont(font_id)      # (a font database change empties Qt's font cache)
lay_out(17.5)                             # new sizes of faces still in use
lay_out(17.5, bold=True)
print({path: count for path, count in mapped().items()})
'''


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/self/maps (Linux)")
def test_a_font_engine_going_does_not_make_qt_map_the_fonts_in_use_again():
    environment = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=environment, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    mapped = eval(done.stdout.strip().splitlines()[-1])      # {path: number of mappings}
    assert mapped, "no font file mapped"
    twice = {Path(path).name: count for path, count in mapped.items() if count > 1}
    assert not twice, f"font files mapped more than once: {twice}"


def test_the_faces_of_the_interface_fonts_are_held(qapp):
    """Every face the application font (each weight and slant, Latin and Han) resolves to is one of
    the held faces."""
    style.pin_font_faces()
    held = {(raw.familyName(), raw.styleName()) for raw in style._pinned_faces}
    assert held
    for bold in (False, True):
        for italic in (False, True):
            font = style.with_chinese_fallback(style.font(14.0, bold))
            font.setItalic(italic)
            for system in (QFontDatabase.WritingSystem.Latin, QFontDatabase.WritingSystem.SimplifiedChinese):
                raw = QRawFont.fromFont(font, system)
                if raw.isValid() and raw.familyName() in style.pinned_families():
                    assert (raw.familyName(), raw.styleName()) in held, (bold, italic, system)
    fixed = QRawFont.fromFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    assert (fixed.familyName(), fixed.styleName()) in held
