"""How many heatmaps fit side by side, and in which arrangement: pure arithmetic, no Qt items.

A tab gives the room it has, the matrix shape of each map, the room axes, titles and a colour
bar take (measured from the current font), and what a cell needs to show its number. `arrange`
tries every rows × columns grid and keeps the best: the most maps whose cells can show their
numbers, else the most maps that stay at least MIN_MAP_PX on each side, else one.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MIN_MAP_PX = 120       # a map smaller than this on either side is not worth drawing


@dataclass(frozen=True)
class Room:
    width: float           # the figure's size, pixels
    height: float
    left_axis: float       # the first column's row labels and axis title
    bottom_axis: float     # the last row's column labels and axis title
    title: float           # above each map: one line of title
    bar: float             # the colour bar column at the right (0: none)
    spacing: float         # between maps


@dataclass(frozen=True)
class Arrangement:
    rows: int
    columns: int
    shown: int             # maps on screen (≤ rows × columns)
    map_width: float       # pixels of one map's data area
    map_height: float
    numbers: bool          # cells big enough for their numbers

    def cell(self, matrix_rows: int, matrix_columns: int) -> tuple[float, float]:
        return self.map_width / max(1, matrix_columns), self.map_height / max(1, matrix_rows)


def map_size(room: Room, rows: int, columns: int, title_lines: Callable[[float], int] = lambda width: 1
             ) -> tuple[float, float]:
    width = (room.width - room.left_axis - room.bar - (columns + 1) * room.spacing) / columns
    title = title_lines(width) * room.title
    height = (room.height - room.bottom_axis - rows * title - (rows + 1) * room.spacing) / rows
    return width, height


def arrange(room: Room, count: int, matrix: tuple[int, int], number_size: tuple[float, float] | None,
            most: int | None = None, shapes: str = "any", all_shown: bool = False,
            min_map_width: float = 0.0, min_map_px: float = MIN_MAP_PX,
            title_lines: Callable[[float], int] = lambda width: 1, row_label_px: float = 0.0) -> Arrangement:
    """The best grid for `count` maps of `matrix` (rows, columns) cells each.

    number_size: (width, height) a cell needs for its number, or None if numbers are not wanted.
    most: never more maps than this at once. shapes: "any" grid, or "line" (one row or one column).
    all_shown: every map must be on screen (no picker to reach the others).
    min_map_width: a map narrower than this (its title's width) counts as too small.
    min_map_px: a map smaller than this on either side counts as too small.
    title_lines(width): how many lines a map's title takes at that width.
    row_label_px: the height a row's label needs; among grids without numbers, one where every
    row keeps its label (a token's name) is preferred.
    """
    most = count if most is None else max(1, min(count, most))
    candidates: list[_Candidate] = []
    for rows in range(1, most + 1):
        for columns in range(1, most + 1):
            if shapes == "line" and rows > 1 and columns > 1:
                continue
            shown = min(most, rows * columns)
            if rows * columns - shown >= min(rows, columns) or (all_shown and shown < count):
                continue          # a whole empty row or column: a smaller grid does better
            width, height = map_size(room, rows, columns, title_lines)
            cell_w, cell_h = width / max(1, matrix[1]), height / max(1, matrix[0])
            wide_enough = width >= min_map_width
            numbers = (number_size is not None and cell_w >= number_size[0] and cell_h >= number_size[1]
                       and wide_enough)
            # how comfortably a cell holds its number (or, without numbers, how big a cell is)
            fit = min(cell_w / number_size[0], cell_h / number_size[1]) if number_size else min(cell_w, cell_h)
            candidates.append(_Candidate(
                Arrangement(rows, columns, shown, width, height, numbers),
                big=width >= max(min_map_px, min_map_width) and height >= min_map_px,
                wide_enough=wide_enough, score=(shown, cell_h >= row_label_px, fit)))
    pool = [c for c in candidates if c.arrangement.numbers]
    if not pool:
        # nothing with numbers: comfortable maps; else at least no title wider than its map (it
        # would push the figure past the view's edge); else one map; else anything
        pool = ([c for c in candidates if c.big] or [c for c in candidates if c.wide_enough]
                or [c for c in candidates if c.arrangement.shown == 1] or candidates)
    return max(pool, key=lambda c: c.score).arrangement


@dataclass(frozen=True)
class _Candidate:
    arrangement: Arrangement
    big: bool                # both sides at least the minimum, titles fit
    wide_enough: bool        # titles fit
    score: tuple             # (maps shown, every row labelled, how well cells fit): higher is better
