"""Screenshots of presentation mode: every step of every shipped lesson, in both languages.

    python tools/present_shots.py OUT_FOLDER [--size 1024x768] [--zoom 100] [--lang zh en] [--lesson ID …]

writes OUT_FOLDER/<lesson id>-<step>-<lang>.png (the step 1-based, two digits), as a projector
of that size shows presentation mode, so that a person can look at every step before a lecture.
One window per language walks the steps through the lesson controller (fast: no restart per
step). Runs offscreen; prints one line per file written.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")


def shoot(out: Path, size: tuple[int, int], zoom: int, languages: list[str],
          only: list[str] | None = None) -> list[Path]:
    from core.formats.lesson import list_lessons, load_lesson
    from core.resources import lessons_dir

    from app.launch import build_window, delete_now
    from app.widgets.appearance import appearance
    from app.widgets.worker import settle

    out.mkdir(parents=True, exist_ok=True)
    lessons = [path for lesson_id, _title, path in list_lessons(lessons_dir()) if not only or lesson_id in only]
    written = []
    for language in languages:
        app, window = build_window(lessons[0], language, zoom=zoom / 100)
        window.resize(*size)
        window.show()
        window.presentation.enter(full_screen=False)
        for _ in range(3):
            app.processEvents()                   # the layout's new minimum, then the size
        window.resize(*size)
        try:
            for path in lessons:
                lesson = load_lesson(path)
                window.open_lesson(path)
                for position in range(len(lesson.steps)):
                    window.lessons.go(position)
                    for _ in range(4):
                        app.processEvents()
                    settle(app)                   # a lab's background work finishes first, as in `screenshot`
                    file = out / f"{lesson.id}-{position + 1:02d}-{language}.png"
                    if not window.grab().toImage().save(str(file), "PNG"):
                        raise OSError(f"cannot write {file}")
                    print(file)
                    written.append(file)
        finally:
            window.close()
            delete_now(window)                    # while Python is whole (see app.launch.delete_now)
            appearance().reset()
    return written


def main(argv: list[str] | None = None) -> int:
    from main import _size, _zoom          # the command line's own checks

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the folder to write the PNGs into")
    parser.add_argument("--size", type=_size, default=(1024, 768), help="window size WxH (default 1024x768)")
    parser.add_argument("--zoom", type=_zoom, default=100, help="interface zoom in percent (default 100)")
    parser.add_argument("--lang", nargs="+", choices=("zh", "en"), default=["zh", "en"])
    parser.add_argument("--lesson", nargs="+", metavar="ID", help="only these lessons (default: all)")
    args = parser.parse_args(argv)
    shoot(args.out, args.size, args.zoom, args.lang, args.lesson)
    return 0


if __name__ == "__main__":
    sys.exit(main())
