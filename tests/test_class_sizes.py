"""No class in app/ over about 350 lines: a newcomer can read one in a sitting, and a part of the
window is a class of its own. (app/labs/ is checked once its panels are split into parts.)"""
import ast

from tests.conftest import ROOT

LIMIT = 350


def test_no_class_in_app_is_over_350_lines():
    long = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        if "labs" in path.relative_to(ROOT / "app").parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > LIMIT:
                long.append(f"{path.relative_to(ROOT)}: {node.name} ({node.end_lineno - node.lineno + 1} lines)")
    assert not long
