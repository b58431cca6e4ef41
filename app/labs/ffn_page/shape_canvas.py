"""The FFN drawn as blocks to (log) scale, for part 3 of the FFN page."""
from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.labs.ffn_page.common import EDGE_PT, KIND_COLOURS
from app.widgets.appearance import appearance
from app.widgets.style import font
from core.labs.ffn_page import SHAPE_BLOCKS, ShapeView, shape_view


class FfnShapeCanvas(QWidget):
    """Y = GELU(X·W_up)·W_down as blocks: edge lengths on a log scale (one step per doubling),
    the real sizes on the edges. Drawing units are fixed by GPT-2's scale, so the small one
    really looks small."""

    ROWS = (("X", "·", "W_up", "=", "Z"), ("→GELU→", "H", "·", "W_down", "=", "Y"))
    CAPTION_SYMBOLS = {"X": "X", "W_up": "W_up", "Z": "X·W_up", "H": "GELU(X·W_up)", "W_down": "W_down", "Y": "Y"}

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnShapesCanvas")
        self.view: ShapeView = shape_view("gpt2")
        self.reference: ShapeView = shape_view("gpt2")
        self.setMinimumSize(600, 360)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)      # grows with the window on a projector
        self.setSizePolicy(policy)
        self.blocks = {block.name: block for block in SHAPE_BLOCKS}
        appearance().changed.connect(self.update)

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
        return QSize(840, 380)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return int(max(380, min(600, 0.42 * width)))      # 1024×768 presenting: the legend and the count below fit

    def set_view(self, view: ShapeView) -> None:
        self.view = view
        self.update()

    def _metrics(self) -> tuple[QFontMetrics, QFontMetrics]:
        return QFontMetrics(self.edge_font), QFontMetrics(self.operator_font)

    def layout_items(self) -> list[tuple[str, QRectF, str, str]]:
        """What is drawn: (what, rect, text, kind), what in block / edge_top / edge_left / operator / caption.

        Every block sits in a slot sized by GPT-2's scale, so switching scales keeps the places."""
        edge, operator = self._metrics()
        label_width = edge.horizontalAdvance("3,072") + 8
        margin = 8
        top_label = edge.height() + 4
        caption = 2 * edge.height() + 6
        row_gap = 12
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

        def height_units(row: tuple[str, ...]) -> float:
            return max(ref.block_size(self.blocks[n])[0] for n in row if n in self.blocks)

        unit_w = min((self.width() - fixed_width(row)) / width_units(row) for row in self.ROWS)
        fixed_height = len(self.ROWS) * (top_label + caption + row_gap) + 2 * margin
        unit_h = (self.height() - fixed_height) / sum(height_units(row) for row in self.ROWS)
        unit = max(2.0, min(unit_w, unit_h))

        def slot_width(name: str) -> float:
            return max(ref.block_size(self.blocks[name])[1] * unit, caption_width(name))

        items: list[tuple[str, QRectF, str, str]] = []
        y = margin
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
