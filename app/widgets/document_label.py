"""QLabels that paint their rich text from a document of their own (DocumentPaint).

A QLabel lays a new rich text out three times before it is on screen (its height at a width, then
back at the width its control had, then again while painting) and parses it twice: for a label
whose live numbers change on every edit (a lesson caption, a lab's formula) that is most of what
the edit costs it. A DocumentPaint label lays each new text out once, at its width, with the very
settings QLabel gives its text control (its default font, word wrap, alignment, no document
margin), and draws it where QLabel draws it, in the colours QLabel uses: the pixels are QLabel's
(tests/app/test_caption_paint.py compares them at every lesson step). QLabel still answers for
the sizes, and paints the label itself while the learner selects text in it (it has focus or a
selection), with the selection.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument, QTextOption
from PySide6.QtWidgets import QLabel, QStyleOption


class DocumentPaint:
    """A mixin for a QLabel subclass (before QLabel among its bases) that calls init_document()
    in its __init__. `lay_out()` lays a new text out at the label's width now (rather than while
    painting); `native = True` leaves the painting to QLabel (the tests compare the two)."""

    def init_document(self) -> None:
        self._document = QTextDocument()
        self._document.setUndoRedoEnabled(False)
        self._settings: tuple | None = None         # (font key, width, alignment, wrap) the document has
        self._text: tuple | None = None             # (text, rich) the document holds
        self._placed: tuple | None = None           # (key, origin, clip): _placing
        self._context: tuple | None = None          # (key, paint context): _placing
        self.layouts = 0                            # documents laid out (counted by the tests)
        self.native = False

    def _document_rect(self) -> QRect:
        """QLabel's rect for its document: the contents less the margin (no indent: no frame)."""
        margin = self.margin()
        return self.contentsRect().adjusted(margin, margin, -margin, -margin)

    def lay_out(self) -> QTextDocument:
        """The document of the current text laid out at the label's width, as QLabel's text
        control lays it out (its default font, wrap mode and alignment, no margin). Each setting
        lays the document out again, so a new text of the same settings changes only the text."""
        rich = self.textFormat() == Qt.TextFormat.RichText
        settings = (self.font().key(), self._document_rect().width(), self.alignment(), self.wordWrap())
        text = (self.text(), rich)
        document = self._document
        if settings != self._settings:
            document.setDefaultFont(self.font())
            document.setDocumentMargin(0)
            option = document.defaultTextOption()
            option.setAlignment(self.alignment())
            option.setWrapMode(QTextOption.WrapMode.WordWrap if self.wordWrap() else QTextOption.WrapMode.ManualWrap)
            document.setDefaultTextOption(option)
            document.setTextWidth(settings[1])
            self._settings = settings
            self._text = None
        if text != self._text:
            if rich:
                document.setHtml(text[0])
            else:
                document.setPlainText(text[0])
            self._text = text
            self.layouts += 1
        document.size()                              # the layout, now rather than while painting
        return document

    def _own_paint(self) -> bool:
        """Whether this paint is the document's: a rich text, no selection under way, and none of
        what QLabel would place otherwise (an indent, a frame)."""
        return not (self.native or self.textFormat() != Qt.TextFormat.RichText or self.indent() > 0
                    or self.frameWidth() or self.hasFocus() or self.hasSelectedText())

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if not self._own_paint():
            QLabel.paintEvent(self, event)
            return
        document = self.lay_out()
        origin, clip, context = self._placing()
        painter = QPainter(self)
        painter.translate(origin)
        painter.setClipRect(clip)
        document.documentLayout().draw(painter, context)
        painter.end()

    def _placing(self) -> tuple[QPointF, QRect, QAbstractTextDocumentLayout.PaintContext]:
        """Where QLabel puts its document (its layout rect: the document rect, the text centred
        vertically by the alignment) and the paint context it draws it with (the palette, its
        text in the label's foreground colour); each kept until what it depends on changes (a new
        number of the same height moves neither)."""
        rect = self._document_rect()
        height = self._document.documentLayout().documentSize().height()
        where = (rect, height, self.alignment())
        if self._placed is None or self._placed[0] != where:
            offset = 0.0
            if where[2] & Qt.AlignmentFlag.AlignVCenter:
                offset = max((rect.height() - height) / 2, 0.0)
            elif where[2] & Qt.AlignmentFlag.AlignBottom:
                offset = max(rect.height() - height, 0.0)
            aligned = QRectF(rect.x(), rect.y() + offset, rect.width(), rect.height()).toAlignedRect()
            self._placed = (where, QPointF(aligned.topLeft()), QRect(0, 0, aligned.width(), aligned.height()))
        palette = self.palette()
        look = (palette.cacheKey(), self.isEnabled(), self.foregroundRole())
        if self._context is None or self._context[0] != look:
            option = QStyleOption()
            option.initFrom(self)
            context = QAbstractTextDocumentLayout.PaintContext()
            context.palette = option.palette
            if self.foregroundRole() != QPalette.ColorRole.Text and self.isEnabled():
                context.palette.setColor(QPalette.ColorRole.Text, context.palette.color(self.foregroundRole()))
            self._context = (look, context)
        return self._placed[1], self._placed[2], self._context[1]
