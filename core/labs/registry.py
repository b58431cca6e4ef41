"""The lab registry: which labs exist, what parts each one has, and where its code lives.

A lab is a core module (its math, pure NumPy), an app package (its panel, one widget per
part) and one `register(Lab(...))` line in core/labs/__init__.py; nothing else names it.
Lessons are validated against this registry ("lab.LAB.PART" in a step's panels) and the
main window builds lab panels by looking them up here. The app side is named by a dotted
string, so core never imports the app.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_LAB_ID = re.compile(r"[a-z][a-z0-9-]{0,31}\Z")
_PART = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+\Z")


class UnknownLab(KeyError):
    """A lab id or part the registry does not know; str() is one sentence naming it."""

    def __str__(self) -> str:          # KeyError would quote the message
        return str(self.args[0])


@dataclass(frozen=True)
class Lab:
    """One lab, as lessons and the main window see it."""
    id: str                  # what lessons write: "lab.<id>.<part>"
    core: str                # dotted path of its core module, e.g. "core.labs.xor"
    parts: tuple[str, ...]   # its parts in order (one tab each), e.g. ("naive", "failure", …)
    title: str               # its title: English source text, translated by the app under context "Labs"
    panel: str               # dotted path of its app panel class, e.g. "app.labs.xor.XorLabPanel"

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _LAB_ID.match(self.id):
            raise ValueError(f"lab id {self.id!r}: expected lower-case letters, digits and -, starting with a letter")
        if not isinstance(self.parts, tuple) or not self.parts:
            raise ValueError(f"lab {self.id!r}: parts must be a non-empty tuple of names")
        for part in self.parts:
            if not isinstance(part, str) or not _PART.match(part):
                raise ValueError(f"lab {self.id!r}: part {part!r} must be lower-case letters, digits and _")
        if len(set(self.parts)) != len(self.parts):
            raise ValueError(f"lab {self.id!r}: a part is listed twice in {', '.join(self.parts)}")
        for name in ("core", "panel"):
            if not _DOTTED.match(getattr(self, name)):
                raise ValueError(f"lab {self.id!r}: {name} {getattr(self, name)!r} must be a dotted path")
        if not self.title:
            raise ValueError(f"lab {self.id!r}: a title is required")

    @property
    def panel_module(self) -> str:
        return self.panel.rpartition(".")[0]

    @property
    def panel_class(self) -> str:
        return self.panel.rpartition(".")[2]

    def panel_names(self) -> tuple[str, ...]:
        """What a lesson step may name to show this lab: "lab.<id>.<part>" for every part."""
        return tuple(f"lab.{self.id}.{part}" for part in self.parts)


_LABS: dict[str, Lab] = {}


def register(lab: Lab) -> Lab:
    """Add a lab; an id that is already taken is refused (unregister it first)."""
    if lab.id in _LABS:
        raise ValueError(f"a lab with id {lab.id!r} is already registered")
    _LABS[lab.id] = lab
    return lab


def unregister(lab_id: str) -> None:
    """Remove a lab (tests that register an example lab clean up with this)."""
    _LABS.pop(lab_id, None)


def labs() -> tuple[Lab, ...]:
    """Every registered lab, in the order they were registered."""
    return tuple(_LABS.values())


def get_lab(lab_id: str) -> Lab:
    """The lab called `lab_id`; UnknownLab (naming it and the known labs) if there is none."""
    try:
        return _LABS[lab_id]
    except KeyError:
        known = ", ".join(_LABS) or "none"
        raise UnknownLab(f"there is no lab \"{lab_id}\"; the labs are {known}") from None


def check_part(lab_id: str, part: str) -> Lab:
    """The lab, if it has `part`; UnknownLab naming the lab, the part and its parts otherwise."""
    lab = get_lab(lab_id)
    if part not in lab.parts:
        raise UnknownLab(f"the lab \"{lab_id}\" has no part \"{part}\"; its parts are {', '.join(lab.parts)}")
    return lab
