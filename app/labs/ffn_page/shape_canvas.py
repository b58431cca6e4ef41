"""The FFN drawn as blocks to (log) scale, for part 3 of the FFN page."""
from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.labs.ffn_page.common import EDGE_PT, KIND_COLOURS
from app.widgets.appearance import appearance
from app.widgets.style import font
from core.labs.ffn_page import SHAPE_BLOCKS, ShapeView, shape_view


LEAST_UNIT = 4.0          # presenting: a log step's length at least, px (the drawing's least height)


class FfnShapeCanvas(QWidget):
    """Y = GELU(X·W_up)·W_down as blocks: edge lengths on a log scale (one step per doubling),
    the real sizes on the edges. Drawing units are fixed by GPT-2's scale, so the small one
    really looks small.

    At the desk its height follows its width (the page scrolls). In presentation mode it takes
    the height its page has left (its part gives it the stretch), asking only for what its texts
    and blocks need at LEAST_UNIT: at 1024×768 with 150 % zoom the page asked for 42 px more than
    the projector has."""

    ROWS = (("X", "·", "W_up", "=", "Z"), ("→GELU→", "H", "·", "W_down", "=", "Y"))
    CAPTION_SYMBOLS = {"X": "X", "W_up": "W_up", "Z": "X·W_up", "H": "GELU(X·W_up)", "W_down": "W_down", "Y": "Y"}

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnShapesCanvas")
        self.view: ShapeView = shape_view("gpt2")
        self.reference: ShapeView = shape_view("gpt2")
        self.blocks = {block.name: block for block in SHAPE_BLOCKS}
        self._follow_appearance()
        appearance().changed.connect(self._follow_appearance)

    def _follow_appearance(self) -> None:
        presenting = appearance().presenting
        self.setMinimumSize(600, self.least_height() if presenting else 360)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding,
                             QSizePolicy.Policy.Expanding if presenting else QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(not presenting)
        self.setSizePolicy(policy)
        self.updateGeometry()
        self.update()

    # the drawing's own texts at the zoom (and presentation mode), as every widget's text is
    @property
    def edge_font(self):
        return font(appearance().points(EDGE_PT))

    @property
    def caption_font(self):
        return font(appearance().points(EDGE_PT))

    @property
    def operator_font(self):
        return font(appearance().points(18))

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(840, self.least_height() if appearance().presenting else 380)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return not appearance().presenting

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return int(max(380, min(600, 0.42 * width)))      # 1024×768 presenting: the legend and the count below fit

    def set_view(self, view: ShapeView) -> None:
        self.view = view
        self.update()

    def _metrics(self) -> tuple[QFontMetrics, QFontMetrics]:
        return QFontMetrics(self.edge_font), QFontMetrics(self.operator_font)

    def _heights(self) -> tuple[float, float, float, float, float]:
        """(top label, caption, gap between the rows, margin, what the texts and gaps of both rows take)."""
        edge, _operator = self._metrics()
        top_label, caption, row_gap, margin = edge.height() + 4, 2 * edge.height() + 6, 12, 8
        return top_label, caption, row_gap, margin, len(self.ROWS) * (top_label + caption + row_gap) + 2 * margin

    def _height_units(self, row: tuple[str, ...]) -> float:
        return max(self.reference.block_size(self.blocks[n])[0] for n in row if n in self.blocks)

    def least_height(self) -> int:
        """The drawing's texts whole, its blocks at LEAST_UNIT px per log step."""
        fixed = self._heights()[-1]
        return int(fixed + LEAST_UNIT * sum(self._height_units(row) for row in self.ROWS)) + 1

    def layout_items(self) -> list[tuple[str, QRectF, str, str]]:
        """What is drawn: (what, rect, text, kind), what in block / edge_top / edge_left / operator / caption.

        Every block sits in a slot sized by GPT-2's scale, so switching scales keeps the places."""
        edge, operator = self._metrics()
        label_width = edge.horizontalAdvance("3,072") + 8
        top_label, caption, row_gap, margin, fixed_height = self._heights()
        ref = self.reference

        def caption_lines(name: str) -> tuple[str, str]:
            block = self.blocks[name]
            return self.CAPTION_SYMBOLS[name], f"{block.rows}×{block.columns}"

        def caption_width(name: str) -> float:
            return max(edge.horizontalAdvance(line) for line in caption_lines(name)) + 6

        def operator_width(name: str) -> float:
            return operator.horizontalAdvance(name) + 12

        def fixed_width(row: tuple[str, ...]) -> float:
            return sum(label_width if n in self.blocks else operator_width(n) for n in row) + 2 * margin

        def width_units(row: tuple[str, ...]) -> float:
            return sum(ref.block_size(self.blocks[n])[1] for n in row if n in self.blocks)

        height_units = self._height_units

        unit_w = min((self.width() - fixed_width(row)) / width_units(row) for row in self.ROWS)
        unit_h = (self.height() - fixed_height) / sum(height_units(row) for row in self.ROWS)
        unit = max(2.0, min(unit_w, unit_h))

        def slot_width(name: str) -> float:
            return max(ref.block_size(self.blocks[name])[1] * unit, caption_width(name))

        items: list[tuple[str, QRectF, str, str]] = []
        used = fixed_height + unit * sum(height_units(row) for row in self.ROWS)
        y = margin + max(0.0, (self.height() - used) / 2)      # a tall room (presenting): the drawing in its middle
        for row in self.ROWS:
            row_height = height_units(row) * unit
            centre_y = y + top_label + row_height / 2
            row_width = sum(label_width + slot_width(n) if n in self.blocks else operator_width(n) for n in row)
            x = max(margin, (self.width() - row_width) / 2)
            for name in row:
                if name not in self.blocks:
                    w = operator_width(name)
                    items.append(("operator", QRectF(x, centre_y - operator.height() / 2, w, operator.height()), name, ""))
                    x += w
                    continue
                block = self.blocks[name]
                height, width = (length * unit for length in self.view.block_size(block))
                slot = slot_width(name)
                x += label_width
                rect = QRectF(x + (slot - width) / 2, centre_y - height / 2, width, height)
                items.append(("block", rect, name, block.kind))
                items.append(("edge_top", QRectF(rect.center().x() - label_width / 2, rect.top() - top_label,
                                                 label_width, top_label - 2),
                              f"{self.view.sizes[block.columns]:,}", block.columns))
                items.append(("edge_left", QRectF(rect.left() - label_width, rect.top(), label_width - 4,
                                                  rect.height()),
                              f"{self.view.sizes[block.rows]:,}", block.rows))
                items.append(("caption", QRectF(x, y + top_label + row_height + 4, slot, caption),
                              "\n".join(caption_lines(name)), block.kind))
                x += slot
            y += top_label + row_height + caption + row_gap
        return items

    def edge_labels(self) -> list[tuple[str, str]]:
        """(dimension symbol, text written on the edge) for every labelled edge."""
        return [(kind, text) for what, _rect, text, kind in self.layout_items() if what.startswith("edge")]

    def block_rects(self) -> dict[str, QRectF]:
        return {text: rect for what, rect, text, _kind in self.layout_items() if what == "block"}

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor("white"))
        for what, rect, text, kind in self.layout_items():
            if what == "block":
                colour = QColor(KIND_COLOURS[kind])
                fill = QColor(colour)
                fill.setAlpha(90)
                painter.setPen(QPen(colour, 2))
                painter.setBrush(fill)
                painter.drawRect(rect)
            elif what.startswith("edge"):
                painter.setPen(QColor("#222222"))
                painter.setFont(self.edge_font)
                align = (Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom) if what == "edge_top" else \
                    (Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                painter.drawText(rect, int(align), text)
            elif what == "operator":
                painter.setPen(QColor("#444444"))
                painter.setFont(self.operator_font)
                painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)
            else:
                painter.setPen(QColor("#333333"))
                painter.setFont(self.caption_font)
                painter.drawText(rect, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop), text)
        painter.end()
