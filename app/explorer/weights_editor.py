"""The weight editor: one tensor of the scenario as an editable table tinted by value.

Pick a tensor (inputs, a weight, targets) and, for the per-head matrices, a head; type into a
cell, drag the selected cell's value with the slider or the spin box, paste a block of numbers,
or fill the whole tensor. Every change is an undo step through the Session; the table only
reads `session.tensor(...)` and repaints on the Session's `changed` notification.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QObject, QRect, QSignalBlocker, QSize, Qt
from PySide6.QtGui import QFontMetrics, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView, QAbstractSlider, QBoxLayout, QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QLineEdit, QMenu,
    QSizePolicy, QSlider, QSpinBox, QStyle, QStyleOptionSlider, QStyleOptionViewItem, QToolButton, QVBoxLayout, QWidget,
)

from app.explorer import finite_marks, tensor_files
from app.explorer.tables import (CELL_POINT_SIZE, MARK_ROLE, ElidedLabel, NumberDelegate, NumberTable, TensorOverview, changed_region, ink_on,
                                 show_overview, zoomed_font)
from app.labs.base import show_only
from app.session import INPUTS, TARGETS, Change, Session
from app.widgets import style
from app.widgets.appearance import appearance
from app.widgets.fitted_combo import FittedComboBox
from app.widgets.flow_layout import FlowLayout
from app.widgets.menus import exec_once
from app.widgets.opaque import GroupBoxBackdrop
from core.finite import FLOAT16_MAX, Cell
from core.formats.scenario import MAX_ABS_VALUE
from core.numbers import format_exact, format_number, parse_number

NUDGE_STEP = 0.05              # wheel / spin step; with Shift held: FINE_STEP
FINE_STEP = 0.01
SLIDER_POSITIONS = 200         # slider positions from 0 to either end of its scale ±L
SLIDER_LEAST_SCALE = 2.0       # the scale is at least ±2, and wider for larger values
PRESENTED_ROWS = 12            # presenting, a table of up to this many rows shows them all (see _fit_rows)

# The letter naming each axis: rows read the input of a layer, columns feed its output.
_MATRIX_AXES = {"W_Q": ("x", "q"), "W_K": ("x", "k"), "W_V": ("x", "v"), "W_O": ("z", "d"),
                "W_in": ("x", "h"), "W_gate": ("x", "g"), "W_out": ("h", "f"), "W_G": ("x", "g")}
_VECTOR_AXIS = {"b_Q": "q", "b_K": "k", "b_V": "v", "b_in": "h", "b_gate": "g", "b_out": "f", "b_G": "g"}


_DISPLAY, _EDIT, _BACKGROUND, _FOREGROUND, _ALIGNMENT, _TOOLTIP = (
    int(role.value) for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, Qt.ItemDataRole.BackgroundRole,
                                 Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.TextAlignmentRole,
                                 Qt.ItemDataRole.ToolTipRole))
_MARK = MARK_ROLE
_HORIZONTAL = Qt.Orientation.Horizontal
_ROLES = frozenset((_DISPLAY, _EDIT, _BACKGROUND, _FOREGROUND, _ALIGNMENT, _TOOLTIP, _MARK))
_RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
_SYNCED = Change.TRACE | Change.EDIT_TARGET


def _numbered(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{i + 1}" for i in range(count)]


def _edit_text(value: float) -> str:
    """A cell's value as the editor shows it: every digit, so an unchanged commit changes nothing.
    Plain ASCII ("-1.5"), as the learner types it; parse_number reads "−" too. Displayed
    text (the cells, the tooltip) uses the Unicode minus of core.numbers."""
    return repr(float(value))


def slider_scale(value: float) -> float:
    """The honest slider's half-range for a value: ±max(2, 2|v|), rounded up to 2, 5, 10, 20 …"""
    return style.nice_limit(max(SLIDER_LEAST_SCALE, 2 * abs(float(value))))


TRIM_MEASURED = 4096         # the widest trimmed number is looked for among this many values at most


class WeightTableModel(QAbstractTableModel):
    """One tensor of the session as a table: a matrix as is, a per-head tensor one head at a
    time, a vector as one row. Never mutates arrays: every edit goes through the session."""

    def __init__(self, session: Session, parent: QObject | None = None):
        super().__init__(parent)
        self._session = session
        self._name = session.edit_tensor
        self._head = 0
        self._shape = self._view_shape()
        self._rows, self._columns = self._labels()
        self._limits: dict[str, float] = {}
        self.trim = False           # numbers without trailing zeros (presentation mode: see WeightEditor.restyle)
        # What was last shown (a view of the Session's array), and the Session's write mark then.
        self._shown, self._mark = self._array_or_none(), session.writes_since(self._name, 0)[0]

    # --- what is shown --------------------------------------------------------------------
    @property
    def tensor_name(self) -> str:
        return self._name

    @property
    def head(self) -> int:
        return self._head

    def tensor(self) -> np.ndarray:
        return self._session.tensor(self._name)

    def view_array(self) -> np.ndarray:
        """The 2-D slice the table shows (a view, not a copy)."""
        array = self.tensor()
        if array.ndim == 3:
            return array[min(self._head, array.shape[0] - 1)]
        if array.ndim == 1:
            return array[np.newaxis, :]
        return array

    def _array_or_none(self) -> np.ndarray | None:
        try:
            return self.view_array()
        except KeyError:
            return None

    def _view_shape(self) -> tuple[int, int]:
        try:
            return tuple(self.view_array().shape)
        except KeyError:
            return (0, 0)

    def full_index(self, row: int, column: int) -> tuple[int, ...]:
        """The tensor index of a table cell."""
        ndim = self.tensor().ndim
        if ndim == 3:
            return (self._head, row, column)
        if ndim == 1:
            return (column,)
        return (row, column)

    def table_position(self, index: tuple[int, ...]) -> tuple[int, int]:
        """The table cell of a tensor index (inverse of full_index)."""
        if len(index) == 3:
            return index[1], index[2]
        if len(index) == 1:
            return 0, index[0]
        return index[0], index[1]

    def show(self, name: str, head: int = 0, force_reset: bool = False) -> tuple[slice, slice] | str | None:
        """Show tensor `name` (head `head` of a per-head one). A model reset when the tensor, head or
        shape changed ("reset" is returned); else only the cells whose values changed are
        repainted (their block is returned; None: nothing changed, e.g. another tensor was edited)."""
        if force_reset or name != self._name or head != self._head or self._view_shape_of(name) != self._shape:
            self.beginResetModel()
            self._name, self._head = name, head
            self._shape = self._view_shape()
            self._rows, self._columns = self._labels()
            self._shown, self._mark = self._array_or_none(), self._session.writes_since(name, 0)[0]
            self.endResetModel()
            return "reset"
        self._mark, writes = self._session.writes_since(name, self._mark)
        if writes == []:                        # nothing written into this tensor, nor replaced
            return None
        array = self.view_array()
        previous, self._shown = self._shown, array
        region = self._written_region(writes, previous, array)
        if region is not None:
            rows, columns = region
            self.dataChanged.emit(self.index(rows.start, columns.start), self.index(rows.stop - 1, columns.stop - 1),
                                  [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole,
                                   Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ToolTipRole])
        return region

    def _written_region(self, writes: list | None, previous: np.ndarray, array: np.ndarray) -> tuple[slice, slice] | None:
        """The block of table cells that may show other values now: the cells the Session wrote in
        place (its arrays change under the view shown), and where a replaced array differs."""
        rows, columns = array.shape
        if writes is None or previous is None or previous.shape != array.shape:
            return (slice(0, rows), slice(0, columns)) if array.size else None
        region = changed_region(previous, array) if None in writes else None
        for where in writes:
            if where is None:
                continue
            if len(where) == 3:                 # a per-head tensor: only this head's cells
                keep = where[0] == self._head
                where = (where[1][keep], where[2][keep])
            elif len(where) == 1:
                where = (np.zeros_like(where[0]), where[0])
            if where[0].size == 1:              # one cell (an edit, a nudge, a drag): no reductions
                row, column = int(where[0][0]), int(where[1][0])
                cells = (slice(row, row + 1), slice(column, column + 1))
            elif where[0].size:
                cells = (slice(int(where[0].min()), int(where[0].max()) + 1),
                         slice(int(where[1].min()), int(where[1].max()) + 1))
            if where[0].size:
                region = cells if region is None else tuple(
                    slice(min(a.start, b.start), max(a.stop, b.stop)) for a, b in zip(region, cells))
        return region

    def _view_shape_of(self, name: str) -> tuple[int, int]:
        shape = self._session.tensor(name).shape
        return (shape[1], shape[2]) if len(shape) == 3 else (1, shape[0]) if len(shape) == 1 else tuple(shape)

    def retranslate(self) -> None:
        """Header labels again in the current language (the per-head bias rows are words)."""
        self._rows, self._columns = self._labels()
        if self._shape[0]:
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, self._shape[0] - 1)

    def forget_limits(self) -> None:
        """A new scenario: colour scales are taken afresh."""
        self._limits.clear()

    def colour_limit(self) -> float:
        """The symmetric colour scale of this tensor: fixed per tensor so it never jumps on an edit —
        taken from the tensor as loaded, or from the first values seen if it was not loaded."""
        limit = self._limits.get(self._name)
        if limit is None:
            loaded = self._session.loaded_tensor(self._name)
            limit = style.limit_for(loaded if loaded is not None else self.tensor())
            self._limits[self._name] = limit
        return limit

    # --- header labels --------------------------------------------------------------------
    def _labels(self) -> tuple[list[str], list[str]]:
        rows, columns = self._shape
        name = self._name
        if name == INPUTS:
            return list(self._session.tokens)[:rows], _numbered("d", columns)
        if name == TARGETS:
            return list(self._session.tokens)[:rows], _numbered("y", columns)
        if name in _MATRIX_AXES:
            row_letter, column_letter = _MATRIX_AXES[name]
            return _numbered(row_letter, rows), _numbered(column_letter, columns)
        if name in ("b_Q", "b_K", "b_V"):
            return [self.tr("head %1").replace("%1", str(h + 1)) for h in range(rows)], _numbered(_VECTOR_AXIS[name], columns)
        if rows == 1:
            return [name], _numbered(_VECTOR_AXIS.get(name, "d"), columns)
        return _numbered("r", rows), _numbered("c", columns)

    def row_label(self, row: int) -> str:
        return self._rows[row] if 0 <= row < len(self._rows) else ""

    def column_label(self, column: int) -> str:
        return self._columns[column] if 0 <= column < len(self._columns) else ""

    def _axis_meaning(self, label: str) -> str:
        meanings = {
            "d": self.tr("model dimension"), "x": self.tr("input dimension of this layer"),
            "h": self.tr("hidden unit (mlp.hook_pre)"), "g": self.tr("gate unit (mlp.hook_gate)"),
            "f": self.tr("FFN output (hook_mlp_out)"), "y": self.tr("target column"),
            "q": self.tr("query dimension"), "k": self.tr("key dimension"), "v": self.tr("value dimension"),
            "z": self.tr("head output dimension (attn.hook_z)"),
        }
        match = re.fullmatch(r"([a-z])\d+", label)
        return meanings.get(match.group(1), "") if match else ""

    # --- Qt model interface ---------------------------------------------------------------
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt's name)
        return 0 if parent.isValid() else self._shape[0]

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else self._shape[1]

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        # Roles compared as ints: this runs for every visible cell on every repaint.
        if not index.isValid():
            return None
        role = int(role)
        if role not in _ROLES:
            return None
        shown = self._shown
        if shown is None:
            return None
        value = float(shown[index.row(), index.column()])
        if role == _DISPLAY:
            return self.text(value)
        if role == _EDIT:
            return value
        if role == _BACKGROUND:
            return style.tint(value, self.colour_limit())
        if role == _FOREGROUND:
            return ink_on(style.tint(value, self.colour_limit()))
        if role == _ALIGNMENT:
            return _RIGHT
        beyond_half = abs(value) > FLOAT16_MAX       # a weight is finite and within ±1e6: notes only
        if role == _MARK:
            return finite_marks.problem_colour(False) if beyond_half else None
        where = ", ".join(map(str, self.full_index(index.row(), index.column())))
        hint = self.tr("Type a number; the wheel over the selected cell nudges it by 0.05 (Shift: 0.01); "
                       "Ctrl+V pastes a block here")
        note = f"\n⚠ {finite_marks.cell_reason(Cell.BEYOND_FLOAT16)}" if beyond_half else ""
        return f"{self._name}[{where}] = {format_exact(value)}{note}\n{hint}"

    def cell_look(self, row: int, column: int) -> tuple:
        """What data() gives for the background, foreground, display and mark roles, in one call
        (NumberDelegate paints a cell from it)."""
        value = float(self._shown[row, column])
        colour = style.tint(value, self.colour_limit())
        mark = finite_marks.problem_colour(False) if abs(value) > FLOAT16_MAX else None
        return colour, ink_on(colour), self.text(value), mark

    def text(self, value: float) -> str:
        """A cell's number as shown: six decimals, or with `trim` exactly as many as it has (up to
        six): 1, −0.5, 0.25 — the same values, in narrower columns."""
        return style.format_number(value, trim=self.trim)

    def widest_texts(self, values: np.ndarray) -> tuple[str, ...]:
        """The texts that decide the columns' width for these values: their least and greatest,
        and with `trim` the longest text of any (up to TRIM_MEASURED values; else all six decimals)."""
        if not values.size:
            return ()
        if values.size == 1:                     # an edit of one cell: its one text, measured once
            return (self.text(float(values.flat[0])),)
        ends = (float(values.min()), float(values.max()))
        if not self.trim:
            return tuple(style.format_number(v) for v in ends)
        if values.size > TRIM_MEASURED:
            return tuple(style.format_number(v) for v in ends)
        return tuple({self.text(float(v)) for v in values.ravel()})

    def setData(self, index: QModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        """Typed text (or a number) into a cell; False if the session refuses it (it says why)."""
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        if isinstance(value, str):
            text, number = value, parse_number(value)
        else:
            try:
                number = float(value)
            except (TypeError, ValueError):
                number = None
            text = str(value)
        return self._session.set_value(self._name, self.full_index(index.row(), index.column()), number, text)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        # Roles compared as ints, the label made only when asked for: a header's size hint asks
        # ~700 times (every role of 200 sections) whenever the edited tensor changes.
        role = int(role)
        if role != _DISPLAY and role != _TOOLTIP:
            return None
        label = self.column_label(section) if orientation == _HORIZONTAL else self.row_label(section)
        if role == _DISPLAY:
            return label
        if role == _TOOLTIP:
            meaning = self._axis_meaning(label)
            return f"{label}: {meaning}" if meaning else label
        return None


class _CellDelegate(NumberDelegate):
    """Cells edit as plain text (so a typo can be refused with a message, not silently eaten);
    they paint as every number table does (the selected cell framed, its tint still visible)."""

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex) -> QWidget:  # noqa: N802
        editor = QLineEdit(parent)
        editor.setObjectName("weightCellEditor")
        editor.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        editor.setFrame(False)
        return editor

    def setEditorData(self, editor: QWidget, index: QModelIndex) -> None:  # noqa: N802
        editor.setText(_edit_text(index.data(Qt.ItemDataRole.EditRole)))
        editor.selectAll()

    def setModelData(self, editor: QWidget, model: QAbstractTableModel, index: QModelIndex) -> None:  # noqa: N802
        model.setData(index, editor.text(), Qt.ItemDataRole.EditRole)


class _NudgeSpinBox(QDoubleSpinBox):
    """A spin box whose wheel steps by NUDGE_STEP, or FINE_STEP with Shift held."""

    def wheelEvent(self, event) -> None:  # noqa: N802
        delta = event.angleDelta().y() or event.angleDelta().x()   # some systems turn Shift+wheel sideways
        if not delta:
            return super().wheelEvent(event)
        fine = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        self.setValue(self.value() + delta / 120 * (FINE_STEP if fine else NUDGE_STEP))
        event.accept()


_VALUE_CHANGE = QAbstractSlider.SliderChange.SliderValueChange


class _ValueSlider(QSlider):
    """A slider that, when only its value changes, repaints the strip its handle moved along (the
    handle where it was and where it is, and the groove's filled part between them), not its whole
    rectangle: the ticks and the rest of the groove stay as they are, and the group box's backdrop
    behind it is copied for that strip only.

    The handle's place at a position is interpolated between its places at the two ends of the
    range, measured once per size, range, orientation, style and font (the style's rounding is within
    a pixel: the strip has a margin of MARGIN px). Set the ticks and the inverted appearance before
    the first value changes."""

    MARGIN = 2          # px around the strip: the style's rounding, the handle's antialiased edge

    def __init__(self, orientation: Qt.Orientation, parent: QWidget | None = None):
        super().__init__(orientation, parent)
        self._drawn = self.sliderPosition()       # where the handle was drawn last
        self._ends: tuple | None = None            # see _handle_ends

    def sliderChange(self, change: QAbstractSlider.SliderChange) -> None:  # noqa: N802 (Qt's name)
        before, self._drawn = self._drawn, self.sliderPosition()
        if change is not _VALUE_CHANGE:
            self._ends = None
            super().sliderChange(change)          # a new range, steps or orientation: all of it again
            return
        if before == self._drawn:
            return
        first, last, length, across, low, span, horizontal = self._ends or self._handle_ends()
        if span <= 0:
            return super().sliderChange(change)
        start = first + (last - first) * (before - low) / span
        end = first + (last - first) * (self._drawn - low) / span
        if start > end:
            start, end = end, start
        margin = self.MARGIN
        start, end = int(start) - margin, int(end) + length + margin + 1
        if horizontal:
            self.update(start, across[0], end - start, across[1])
        else:
            self.update(across[0], start, across[1], end - start)

    def _handle_ends(self) -> tuple:
        """(the handle's start along the groove at the minimum, at the maximum, its length, the strip
        across: its start and extent (handle and groove, with the margin), the minimum, the range,
        horizontal?), measured now."""
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        style, slider = self.style(), QStyle.ComplexControl.CC_Slider
        groove = style.subControlRect(slider, option, QStyle.SubControl.SC_SliderGroove, self)
        ends = []
        for position in (self.minimum(), self.maximum()):
            option.sliderPosition = option.sliderValue = position
            ends.append(style.subControlRect(slider, option, QStyle.SubControl.SC_SliderHandle, self))
        both = ends[0].united(ends[1]).united(groove)
        horizontal = self.orientation() == Qt.Orientation.Horizontal
        starts = [rect.left() if horizontal else rect.top() for rect in ends]
        length = ends[0].width() if horizontal else ends[0].height()
        across = (both.top(), both.height()) if horizontal else (both.left(), both.width())
        across = (across[0] - self.MARGIN, across[1] + 2 * self.MARGIN)
        self._ends = (starts[0], starts[1], length, across, self.minimum(), self.maximum() - self.minimum(), horizontal)
        return self._ends

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self._ends = None
        super().resizeEvent(event)

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self._ends = None                        # another style, font or direction: measured again
        super().changeEvent(event)


class TensorLine(QWidget):
    """The tensor's box, then its head's ("Head [head 1]") beside it; at the desk on a panel too
    narrow for both (150 % on 1024 px: side by side they held the right-hand column 68 px wider
    than the window had room for) the head's goes on a line of its own under the tensor's, so
    neither box is squeezed below its text. Presenting, the line stays one (its word "Head" steps
    aside there instead, and the presentation's panels are placed by that width)."""

    def __init__(self, tensor_combo: QComboBox, head_label: QLabel, head_selector: QComboBox):
        super().__init__()
        self.tensor_combo, self.head_selector = tensor_combo, head_selector
        line = self.line = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(tensor_combo, 1)
        heads = self.heads = QHBoxLayout()
        heads.addWidget(head_label)
        heads.addWidget(head_selector)
        line.addLayout(heads)

    def _may_stack(self) -> bool:
        return not appearance().presenting and self.head_selector.isVisibleTo(self)

    def fit(self) -> None:
        """The head's box beside the tensor's where both fit the width, else under it."""
        if not self.isVisible():
            return          # (a combo box keeps the first least size it is asked for: not before its font)
        beside = self.tensor_combo.minimumSizeHint().width() + max(self.line.spacing(), 0) + self.heads.minimumSize().width()
        stack = self._may_stack() and self.width() < beside
        direction = QBoxLayout.Direction.TopToBottom if stack else QBoxLayout.Direction.LeftToRight
        if self.line.direction() != direction:
            self.line.setDirection(direction)
            # under the tensor's, the head's box as wide as its text, at the left
            self.line.setAlignment(self.heads, Qt.AlignmentFlag.AlignLeft if stack else Qt.AlignmentFlag(0))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        least = super().minimumSizeHint()
        if not self._may_stack():
            return least
        return QSize(max(self.tensor_combo.minimumSizeHint().width(), self.heads.minimumSize().width()), least.height())

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.fit()


class WeightEditor(QWidget):
    """Side panel: choose a tensor, edit its cells, drag the selected one, paste, fill, import.

    The table (WeightTableModel in a NumberTable, with an overview picture beside it when the
    slice is large) is this class's; the selected cell's spin box and slider are a CellControls,
    the fill, paste and file buttons a TensorActions, both below the table."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("weightEditor")
        self.session = session
        self._syncing = False
        self._tensor_signature: tuple = ()
        self._remembered: dict[str, tuple[int, ...]] = {}   # last cell per tensor, to come back to

        self.tensor_combo = QComboBox()
        self.tensor_combo.setObjectName("weightTensorCombo")
        self.tensor_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.tensor_combo.setMinimumContentsLength(12)
        self.tensor_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.head_label = QLabel()
        self.head_selector = FittedComboBox()    # "head 2" whole at any zoom, in either language
        self.head_selector.setObjectName("weightHeadSelector")

        self.model = WeightTableModel(session, self)
        self.table = NumberTable("weightTable")
        self.table.grows_by_stretch = True        # short of height, the rows scroll; the buttons stay whole
        self.table.setModel(self.model)
        self.table.setItemDelegate(_CellDelegate(self.table))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.table.viewport().installEventFilter(self)
        self.table.installEventFilter(self)
        self.table.selectionModel().currentChanged.connect(self._on_current_changed)
        self.table.horizontalScrollBar().valueChanged.connect(self._show_window)
        self.table.verticalScrollBar().valueChanged.connect(self._show_window)
        self.overview = TensorOverview("weightOverview")
        self.overview.cellPicked.connect(self._overview_picked)

        self.cell_controls = CellControls(self)
        self.tensor_actions = TensorActions(self)
        self.table.customContextMenuRequested.connect(lambda position: exec_once(
            self.tensor_actions.file_menu(), self.table.viewport().mapToGlobal(position)))
        # Their widgets, by the names the tests and the plugin's driver use.
        self.cell_label, self.value_spin = self.cell_controls.cell_label, self.cell_controls.value_spin
        self.value_slider = self.cell_controls.value_slider
        self.paste_button, self.reset_button = self.tensor_actions.paste_button, self.tensor_actions.reset_button
        self.zero_button, self.identity_button = self.tensor_actions.zero_button, self.tensor_actions.identity_button
        self.random_button, self.seed_spin = self.tensor_actions.random_button, self.tensor_actions.seed_spin

        self.tensor_line = TensorLine(self.tensor_combo, self.head_label, self.head_selector)
        numbers = QHBoxLayout()
        numbers.setSpacing(4)
        numbers.addWidget(self.table, 1)
        numbers.addWidget(self.overview)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)   # the dock around the panel gives the margin
        layout.addWidget(self.tensor_line)
        layout.addLayout(numbers, 1)
        layout.addWidget(self.cell_controls)
        layout.addWidget(self.tensor_actions)
        layout.addStretch(0)             # when the table needs less height, controls stay right below it

        self.tensor_combo.currentIndexChanged.connect(self._on_tensor_chosen)
        self.head_selector.currentIndexChanged.connect(self._on_head_chosen)
        session.changed.connect(self._on_changed)
        appearance().changed.connect(self.restyle)
        self.retranslate()
        self.restyle()
        self._sync(force_reset=True)

    def _on_changed(self, change: Change) -> None:
        if change is Change.TRACE or change is Change.EDIT_TARGET:    # the commonest: no Flag arithmetic
            self._sync()
        elif change & Change.LOADED:
            self._on_scenario_loaded()
        elif change & _SYNCED:
            self._sync()

    # --- reading the session --------------------------------------------------------------
    def current_tensor(self) -> str:
        return self.model.tensor_name

    def current_cell(self) -> tuple[int, ...]:
        """The tensor index of the table's current cell (the session's edit cell)."""
        current = self.table.currentIndex()
        row, column = (current.row(), current.column()) if current.isValid() else (0, 0)
        return self.model.full_index(row, column)

    def _tensor_label(self, name: str) -> str:
        shape = "×".join(map(str, self.session.tensor(name).shape))
        if name == INPUTS:
            return self.tr("inputs x (hook_resid_pre)") + f"  {shape}"
        if name == TARGETS:
            return self.tr("targets y") + f"  {shape}"
        return f"{name}  {shape}"

    def _rebuild_tensor_list(self) -> None:
        names = self.session.tensor_names()
        signature = tuple((name, self.session.tensor(name).shape) for name in names) + (self.session.tokens,)
        if signature == self._tensor_signature:
            return
        self._tensor_signature = signature
        with QSignalBlocker(self.tensor_combo):
            self.tensor_combo.clear()
            for name in names:
                self.tensor_combo.addItem(self._tensor_label(name), name)

    def _on_scenario_loaded(self) -> None:
        self.model.forget_limits()
        self._remembered.clear()
        self._tensor_signature = ()
        self._sync(force_reset=True)

    def _sync(self, force_reset: bool = False) -> None:
        """Bring every widget to the session's state, signals blocked so nothing writes back."""
        session = self.session
        self._syncing = True
        try:
            self._rebuild_tensor_list()
            name, index = session.edit_tensor, tuple(session.edit_index)
            self._remembered[name] = index
            ndim = session.tensor(name).ndim
            head = index[0] if ndim == 3 else 0
            if self.tensor_combo.currentData() != name:
                with QSignalBlocker(self.tensor_combo):
                    self.tensor_combo.setCurrentIndex(self.tensor_combo.findData(name))
            per_head = ndim == 3
            if self.head_selector.isVisibleTo(self) != per_head:
                self.head_label.setVisible(per_head)
                self.head_selector.setVisible(per_head)
                self.tensor_line.fit()
            if per_head:
                heads = session.tensor(name).shape[0]
                with QSignalBlocker(self.head_selector):
                    if self.head_selector.count() != heads:
                        self.head_selector.clear()
                        self.head_selector.addItems([self.tr("head %1").replace("%1", str(h + 1)) for h in range(heads)])
                    self.head_selector.setCurrentIndex(head)
            region = self.model.show(name, head, force_reset=bool(force_reset))
            if region == "reset":
                self._fit_table()
            elif region is not None:            # an edit: only its cells may need wider columns
                changed = self.model.view_array()[region]
                self.table.widen_for(self.model.widest_texts(changed))
            if region is not None:
                self._show_overview(region)
            row, column = self.model.table_position(index)
            target = self.model.index(row, column)
            if self.table.currentIndex() != target:
                self.table.selectionModel().setCurrentIndex(
                    target, self.table.selectionModel().SelectionFlag.ClearAndSelect)
            self.cell_controls.show_value(float(session.tensor(name)[index]), (name, index))
            self._update_cell_label(name, index, row, column)
        finally:
            self._syncing = False
        self._show_window()

    def _update_cell_label(self, name: str, index: tuple[int, ...], row: int, column: int) -> None:
        where = f"{name}[{', '.join(map(str, index))}]"
        if self.model.tensor().ndim == 1:
            axes = self.model.column_label(column)
        else:
            axes = f"{self.model.row_label(row)} → {self.model.column_label(column)}"
        text = f"{where}  ·  {axes}"
        if text != self.cell_label.full_text():     # an edit of the same cell: nothing here to fit again
            self.cell_label.set_full_text(text)
            self.cell_controls.fit_cell_row()

    def _fit_table(self) -> None:
        """Columns as wide as the tensor's longest number (never elided; an edit only widens them,
        so nothing jumps: see _sync); the table no taller than its rows."""
        array = self.model.view_array()
        texts = self.model.widest_texts(array)
        # Room for a minus sign, so an edit to a negative value does not widen the columns; not in
        # presentation mode, where the table shows whole at its shown size first (an edit widens it).
        least = "0" if self.model.trim else "−0.000000"
        self.table.fit_columns(texts + (least,), force=True)
        self._fit_rows()

    def _fit_rows(self) -> None:
        """On a projector nobody scrolls: the table is at least as tall as all its rows (up to
        PRESENTED_ROWS of them; a larger slice scrolls, its overview beside it), so the step's
        panels are placed where they have that room. Elsewhere it may scroll its rows."""
        rows = self.model.rowCount()
        whole = appearance().presenting and 0 < rows <= PRESENTED_ROWS
        self.table.grows_by_stretch = not whole
        least = self.table.content_height() if whole else 0
        if self.table.minimumHeight() != least:
            self.table.setMinimumHeight(least)
        # a table of fixed height: the room left over goes below the controls, not between them
        layout = self.layout()
        if layout is not None:
            layout.setStretch(1, 0 if whole else 1)
            layout.setStretch(layout.count() - 1, 1 if whole else 0)
        self.table.updateGeometry()

    def _show_overview(self, region) -> None:
        array = self.model.view_array()
        wanted = show_overview(array.shape)
        if wanted != self.overview.isVisibleTo(self):
            self.overview.setVisible(wanted)
        if wanted:
            self.overview.set_array(array, new=region == "reset" or self.overview.shape != array.shape)

    def _show_window(self) -> None:
        if self.overview.isVisibleTo(self):
            current = self.table.currentIndex()
            self.overview.set_view(self.table.visible_cells(), (max(current.row(), 0), max(current.column(), 0)))

    def _overview_picked(self, row: int, column: int) -> None:
        self.session.select_edit_cell(self.current_tensor(), self.model.full_index(row, column))

    # --- zoom and language ----------------------------------------------------------------
    def restyle(self) -> None:
        """Fonts and sizes for the current interface zoom."""
        self.setFont(zoomed_font(CELL_POINT_SIZE))
        if self.model.trim != appearance().presenting:
            self.model.trim = appearance().presenting      # whole tables on a projector: no trailing zeros
            self.table.viewport().update()
        self.table.restyle()
        self.cell_controls.restyle()
        self.tensor_actions.restyle()
        # On a projector the table is for the audience: the fill / paste / file buttons are editing
        # chrome, hidden while presenting so the table's rows get their room (typing into a cell,
        # the spin box and the slider still edit); they come back on leaving.
        self.tensor_actions.setVisible(not appearance().presenting)
        self._word_head_label()
        self._fit_table()
        self._show_window()

    def _word_head_label(self) -> None:
        """"Head" before the head picker, but not in presentation mode: its items already say
        "head 1", and the tensor's line without the word is some 50 px narrower, so a shelf of
        this panel beside the plots leaves the inspector the width for every column of its table."""
        self.head_label.setText("" if appearance().presenting else self.tr("Head"))
        self.tensor_line.fit()

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        self.tensor_combo.setToolTip(self.tr("The tensor to edit: the block's input x, a weight, or the targets"))
        self._word_head_label()
        self.head_selector.setToolTip(self.tr("Which head's slice the table shows"))
        self.overview.setToolTip(self.tr("The whole tensor (one pixel per number): click to go to a cell; "
                                         "the frame is the part the table shows"))
        self.cell_controls.retranslate()
        self.tensor_actions.retranslate()
        self._tensor_signature = ()         # the combo's labels are worded again
        self.model.retranslate()
        if not self._syncing:
            self._sync()
            with QSignalBlocker(self.head_selector):
                for head in range(self.head_selector.count()):
                    self.head_selector.setItemText(head, self.tr("head %1").replace("%1", str(head + 1)))

    # --- user choices → session -----------------------------------------------------------
    def _on_tensor_chosen(self, combo_index: int) -> None:
        if self._syncing or combo_index < 0:
            return
        name = self.tensor_combo.itemData(combo_index)
        shape = self.session.tensor(name).shape
        index = self._remembered.get(name)
        if index is None or len(index) != len(shape) or any(i >= n for i, n in zip(index, shape)):
            index = (0,) * len(shape)
        self.session.select_edit_cell(name, index)

    def _on_head_chosen(self, head: int) -> None:
        if self._syncing or head < 0 or self.model.tensor().ndim != 3:
            return
        _, row, column = self.current_cell()
        self.session.select_edit_cell(self.current_tensor(), (head, row, column))

    def _on_current_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        index = self.model.full_index(current.row(), current.column())
        if (self.current_tensor(), index) != (self.session.edit_tensor, tuple(self.session.edit_index)):
            self.session.select_edit_cell(self.current_tensor(), index)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        kind = event.type()
        if watched is self.table.viewport() and kind == QEvent.Type.Wheel:
            index = self.table.indexAt(event.position().toPoint())
            if index.isValid() and index == self.table.currentIndex() and self.table.state() != QAbstractItemView.State.EditingState:
                delta = event.angleDelta().y() or event.angleDelta().x()
                if delta:
                    self.cell_controls.nudge(delta / 120, fine=bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
                    event.accept()
                    return True
        elif watched is self.table and kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            if event.matches(QKeySequence.StandardKey.Paste):
                event.accept()
                if kind == QEvent.Type.KeyPress:
                    self.tensor_actions.paste()
                return True
        return super().eventFilter(watched, event)

    # --- the parts' actions, for the driver, the File menu and the tests --------------------
    @property
    def syncing(self) -> bool:
        """True while the widgets are being brought to the session's state (they must not write back)."""
        return self._syncing

    def nudge(self, steps: float, fine: bool = False) -> bool:
        return self.cell_controls.nudge(steps, fine)

    def paste(self) -> bool:
        return self.tensor_actions.paste()

    def fill_zero(self) -> bool:
        return self.tensor_actions.fill_zero()

    def fill_identity(self) -> bool:
        return self.tensor_actions.fill_identity()

    def fill_random(self) -> bool:
        return self.tensor_actions.fill_random()

    def reset(self) -> bool:
        return self.tensor_actions.reset()

    def export_tensor(self, path: Path) -> bool:
        """Write the edited tensor (every head) to `path`, CSV or .npy by its suffix."""
        return self.tensor_actions.export_tensor(path)

    def import_tensor(self, path: Path) -> bool:
        """Read a CSV or .npy file into the edited tensor (or the shown head) as one undo step."""
        return self.tensor_actions.import_tensor(path)


class CellControls(GroupBoxBackdrop):
    """Under the table: the selected cell's name and value, a spin box to type or step it and a
    slider to drag it. The slider's scale is honest: its ends are the values −L and +L printed
    beside it, the handle sits at the cell's value, and L = ±max(2, 2|v|) rounded up (2, 5, 10 …)
    is chosen for the cell and kept while the value stays on it. One drag is one undo step."""

    def __init__(self, editor: WeightEditor):
        super().__init__()
        self.setObjectName("weightCellControls")
        self.editor = editor
        self.session = editor.session
        self.scale = SLIDER_LEAST_SCALE        # the slider runs from −scale to +scale
        self._position = 0                     # where the handle was put last
        self._cell: tuple = ()                 # the cell the scale was chosen for

        self.cell_label = ElidedLabel("weightCellLabel")
        self.value_spin = _NudgeSpinBox()
        self.value_spin.setObjectName("weightValueSpin")
        self.value_spin.setDecimals(style.DECIMALS)
        self.value_spin.setRange(-MAX_ABS_VALUE, MAX_ABS_VALUE)
        self.value_spin.setSingleStep(NUDGE_STEP)
        self.value_spin.setKeyboardTracking(False)     # a typed number counts on Enter, not per keystroke
        self.value_spin.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.value_spin.valueChanged.connect(self._on_spin_changed)

        self.value_slider = _ValueSlider(Qt.Orientation.Horizontal)
        self.value_slider.setObjectName("weightValueSlider")
        self.value_slider.setRange(-SLIDER_POSITIONS, SLIDER_POSITIONS)
        self.value_slider.setSingleStep(1)
        self.value_slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.value_slider.setTickInterval(SLIDER_POSITIONS // 2)
        self.value_slider.valueChanged.connect(self._on_slider_changed)
        self.value_slider.sliderReleased.connect(self._released)
        self.value_slider.sliderReleased.connect(self.session.end_gesture)     # one drag, one undo step
        self.slider_minus = QLabel()
        self.slider_minus.setObjectName("weightSliderMinimum")
        self.slider_plus = QLabel()
        self.slider_plus.setObjectName("weightSliderMaximum")

        cell_row = self.cell_row = QBoxLayout(QBoxLayout.Direction.LeftToRight)   # see fit_cell_row
        cell_row.addWidget(self.cell_label, 1)
        cell_row.addWidget(self.value_spin)
        slider_row = QHBoxLayout()
        slider_row.addWidget(self.slider_minus)
        slider_row.addWidget(self.value_slider, 1)
        slider_row.addWidget(self.slider_plus)
        self.slider_row = slider_row
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(cell_row)
        layout.addLayout(slider_row)
        self._set_scale(self.scale)

    def retranslate(self) -> None:
        self.value_spin.setToolTip(self.tr("The selected cell's value: arrows and wheel step by 0.05 (Shift: 0.01)"))
        self.value_slider.setToolTip(self.tr("Drag to set the selected cell's value on the scale printed at its ends "
                                             "(0 in the middle); one drag is one undo step"))

    def restyle(self) -> None:
        metrics = QFontMetrics(self.editor.font())
        self.value_spin.setMinimumWidth(metrics.horizontalAdvance("−1000000.000000") + appearance().pixels(30))
        self.fit_cell_row()
        self.updateGeometry()                  # presenting or not: another least height
        self._step_aside()

    # --- presenting, short of height ------------------------------------------------------
    # The cell's name (the table frames the cell, its labels name the row and the column), then the
    # spin box (the table's cell shows the value and takes a typed one) step aside while the panel
    # is short of height on a projector (150 % on 1024×768: the table's rows are all shown); the
    # slider stays. At the desk, and wherever the room is enough, all are shown.
    def _aside(self) -> tuple[QWidget, ...]:
        return (self.cell_label, self.value_spin)

    def _height(self, hidden=()) -> int:
        """The controls' height with all but `hidden` shown."""
        spacing = max(self.layout().spacing(), 0)
        label, spin = self.cell_label.sizeHint().height(), self.value_spin.sizeHint().height()
        slider = self.slider_row.sizeHint().height()
        beside = self.cell_row.direction() == QBoxLayout.Direction.LeftToRight
        shown = [height for widget, height in ((self.cell_label, label), (self.value_spin, spin)) if widget not in hidden]
        if not shown:
            return slider
        row = max(shown) if beside else sum(shown) + spacing * (len(shown) - 1)
        return row + spacing + slider

    def aside_height(self) -> int:
        """The px of height that may step aside (presenting; 0 at the desk): a panel that places
        this one counts them, so it is placed by its whole need (app/presentation_panels.py)."""
        return self._height() - self._height(self._aside()) if appearance().presenting else 0

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().sizeHint()
        return QSize(hint.width(), self._height()) if appearance().presenting else hint

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        least = super().minimumSizeHint()
        return QSize(least.width(), self._height(self._aside())) if appearance().presenting else least

    def _step_aside(self) -> None:
        """Presenting, hide the fewest of `_aside()` (in their order) for the rest to fit the height."""
        aside = self._aside()
        hidden: list[QWidget] = []
        if appearance().presenting:
            for widget in (None, *aside):
                if widget is not None:
                    hidden.append(widget)
                if self._height(hidden) <= self.height():
                    break
        show_only(aside, hidden, self)

    def fit_cell_row(self) -> None:
        """The cell's name beside its value where both fit the width, else on its own line above
        it: the name is never cut (W_O[0, 0, 0] · z1 → d1 in a narrow panel, large text)."""
        label = self.cell_label
        needed = (label.fontMetrics().horizontalAdvance(label.full_text()) + 2 * label.margin() + 2
                  + max(self.cell_row.spacing(), 0) + max(self.value_spin.minimumWidth(), self.value_spin.sizeHint().width()))
        direction = QBoxLayout.Direction.LeftToRight if needed <= self.width() else QBoxLayout.Direction.TopToBottom
        if self.cell_row.direction() != direction:
            self.cell_row.setDirection(direction)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.fit_cell_row()
        self._step_aside()

    def current_tensor(self) -> str:
        return self.editor.current_tensor()

    def current_cell(self) -> tuple[int, ...]:
        return self.editor.current_cell()

    # --- the scale ------------------------------------------------------------------------
    @property
    def step(self) -> float:
        """The value between two slider positions."""
        return self.scale / SLIDER_POSITIONS

    def _set_scale(self, scale: float) -> None:
        self.scale = scale
        text = format_number(scale, trim=True)
        self.slider_minus.setText(style.MINUS + text)
        self.slider_plus.setText("+" + text)
        self.value_slider.setPageStep(max(1, round(NUDGE_STEP / self.step)))

    def _place_handle(self, value: float) -> None:
        ratio = max(-SLIDER_POSITIONS, min(SLIDER_POSITIONS, value / self.step))     # 1e308/step is ∞: clipped
        self._position = round(ratio) if ratio == ratio else 0                        # NaN: the middle
        with QSignalBlocker(self.value_slider):
            self.value_slider.setValue(self._position)

    def show_value(self, value: float, cell: tuple = ()) -> None:
        """The selected cell's value, signals blocked; unless the handle is being dragged, the
        scale is chosen afresh for a new cell or a value that left it, and the handle put at the value."""
        # Set only a value the box does not show already: setValue repaints the box (and the panels
        # beneath it) even for its own value, and an edit of another tensor leaves this cell as it is.
        if not (math.isfinite(value) and float(f"{value:.{self.value_spin.decimals()}f}") == self.value_spin.value()):
            with QSignalBlocker(self.value_spin):
                self.value_spin.setValue(value)
        if self.value_slider.isSliderDown():
            return
        if cell != self._cell or abs(value) > self.scale or self.scale > 5 * slider_scale(value):
            self._cell = cell
            self._set_scale(slider_scale(value))
            self.retranslate()
        self._place_handle(value)

    # --- edits ----------------------------------------------------------------------------
    def _set_selected(self, value: float, merge: bool = True) -> bool:
        return self.session.set_value(self.current_tensor(), self.current_cell(), value, style.format_number(value),
                                      merge=merge)

    def _on_spin_changed(self, value: float) -> None:
        if not self.editor.syncing:
            self._set_selected(value)

    def _on_slider_changed(self, position: int) -> None:
        if self.editor.syncing:
            return
        if self.value_slider.isSliderDown():       # dragged: the value under the handle
            value = round(position * self.step, 6)
            self._position = position
            # Many values per frame: each is written and recorded now, the views update once a frame.
            self.session.set_value_coalesced(self.current_tensor(), self.current_cell(), value,
                                             style.format_number(value))
            return
        # a key or a click on the track: a step from the exact value
        current = float(self.session.tensor(self.current_tensor())[self.current_cell()])
        value = round(current + (position - self._position) * self.step, 6)
        self._position = position
        self._set_selected(value)

    def _released(self) -> None:
        """After a drag: its last value shown now; a scale for the value it ended at (if it left
        the old one), handle on it."""
        self.session.flush()
        value = float(self.session.tensor(self.current_tensor())[self.current_cell()])
        self.show_value(value, self._cell)

    def nudge(self, steps: float, fine: bool = False) -> bool:
        """Move the selected cell by steps × 0.05 (fine: × 0.01), merged with the previous nudge."""
        current = float(self.session.tensor(self.current_tensor())[self.current_cell()])
        return self._set_selected(round(current + steps * (FINE_STEP if fine else NUDGE_STEP), 6))


class TensorActions(QWidget):
    """Under the table: fill the whole tensor (zero, identity, seeded random), put it back as
    loaded, paste a block of numbers at the selected cell, or import / export the tensor as a
    file; one undo step each. The buttons wrap onto a second line only when the panel is narrow."""

    def __init__(self, editor: WeightEditor):
        super().__init__()
        self.setObjectName("weightTensorActions")
        self.editor = editor
        self.session = editor.session

        self.zero_button = self._button("weightZeroButton", self.fill_zero)
        self.identity_button = self._button("weightIdentityButton", self.fill_identity)
        self.random_button = self._button("weightRandomButton", self.fill_random)
        self.seed_label = QLabel()
        self.seed_spin = QSpinBox()
        self.seed_spin.setObjectName("weightSeedSpin")
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setValue(0)
        self.seed_spin.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.paste_button = self._button("weightPasteButton", self.paste)
        self.reset_button = self._button("weightResetButton", self.reset)
        self.file_button = QToolButton()
        self.file_button.setObjectName("weightFileButton")
        self.file_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.file_button.clicked.connect(lambda: exec_once(
            self.file_menu(), self.file_button.mapToGlobal(self.file_button.rect().bottomLeft())))
        seed = QWidget()
        seed_box = QHBoxLayout(seed)
        seed_box.setContentsMargins(0, 0, 0, 0)
        seed_box.setSpacing(3)
        seed_box.addWidget(self.seed_label)
        seed_box.addWidget(self.seed_spin)

        flow = FlowLayout(self, spacing=4)
        for widget in (self.zero_button, self.identity_button, self.random_button, seed, self.paste_button,
                       self.reset_button, self.file_button):
            flow.addWidget(widget)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def retranslate(self) -> None:
        for button, text, tip in (
            (self.paste_button, self.tr("Paste"), self.tr("Paste numbers from the clipboard (rows of tab-, comma- or "
                                                          "space-separated values) starting at the selected cell")),
            (self.reset_button, self.tr("Reset"), self.tr("Put the whole tensor back as the scenario loaded it")),
            (self.zero_button, self.tr("Zero"), self.tr("Set every number of the tensor (all heads) to 0")),
            (self.identity_button, self.tr("Identity"), self.tr("Ones on the diagonal of each matrix (of each head), "
                                                                "0 elsewhere; a vector becomes all ones")),
            (self.random_button, self.tr("Random"), self.tr("Seeded random values N(0, 1/fan_in) rounded to 2 decimals, "
                                                            "for the whole tensor; the seed then advances by one")),
            (self.file_button, self.tr("File"), self.tr("Import a matrix from a CSV or .npy file into this tensor, "
                                                        "or export the tensor")),
        ):
            button.setText(text)
            button.setToolTip(tip)
        self.seed_label.setText(self.tr("Seed"))
        self.seed_spin.setToolTip(self.tr("The seed the next Random uses: the same seed gives the same numbers"))
        self.updateGeometry()

    def restyle(self) -> None:
        # Room for a six-digit seed (the range goes to 2³¹ − 1, whose width Qt would reserve).
        metrics = QFontMetrics(self.editor.font())
        self.seed_spin.setFixedWidth(metrics.horizontalAdvance("000000") + appearance().pixels(30))
        self.updateGeometry()

    def current_tensor(self) -> str:
        return self.editor.current_tensor()

    def _button(self, name: str, slot) -> QToolButton:
        button = QToolButton()             # as wide as its word: a push button is at least 80 px
        button.setObjectName(name)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        button.clicked.connect(slot)
        return button

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self.layout().heightForWidth(width)

    # --- files ----------------------------------------------------------------------------
    def file_menu(self) -> QMenu:
        """Import into the tensor (or the shown head), export the tensor: for the table's right-click
        menu and the File button."""
        name = self.current_tensor()
        menu = QMenu(self)
        menu.setObjectName("weightFileMenu")
        entries = (("weightImport", self.tr("Import into %1 from CSV or .npy…"), self._import_dialog),
                   ("weightExportCsv", self.tr("Export %1 as CSV…"), lambda: self._export_dialog(".csv")),
                   ("weightExportNpy", self.tr("Export %1 as NumPy .npy…"), lambda: self._export_dialog(".npy")))
        for object_name, text, slot in entries:
            action = menu.addAction(text.replace("%1", name))
            action.setObjectName(object_name)
            action.triggered.connect(slot)
        return menu

    def export_tensor(self, path: Path) -> bool:
        name = self.current_tensor()
        array = self.session.tensor(name)
        shape = "×".join(map(str, array.shape))
        return tensor_files.export_tensor(self.session, Path(path), array, f"{name} [{shape}]", (f"{name} [{shape}]",))

    def import_tensor(self, path: Path) -> bool:
        head = self.editor.model.head if self.session.tensor(self.current_tensor()).ndim == 3 else None
        return tensor_files.import_tensor(self.session, self.current_tensor(), Path(path), head)

    def _export_dialog(self, suffix: str) -> None:
        path = tensor_files.ask_save_path(self, self.current_tensor().replace(".", "_") + suffix, suffix)
        if path:
            self.export_tensor(path)

    def _import_dialog(self) -> None:
        path = tensor_files.ask_open_path(self)
        if path:
            self.import_tensor(path)

    # --- paste ----------------------------------------------------------------------------
    def _parse_block(self, text: str) -> tuple[list[list[float]] | None, str]:
        """Rows of numbers from clipboard text, or (None, why not). All or nothing."""
        lines = [line for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]
        if not lines:
            return None, self.tr("The clipboard holds no numbers to paste; nothing changed.")
        rows: list[list[float]] = []
        for r, line in enumerate(lines):
            row = []
            # Spreadsheets separate cells with tabs (or ";"); then a comma inside a cell is not a
            # separator, and "0,5" is refused rather than read as two numbers.
            separators = r"[\t;]+" if re.search(r"[\t;]", line) else r"[,\s]+"
            for c, item in enumerate(t.strip() for t in re.split(separators, line.strip()) if t.strip()):
                number = parse_number(item)
                if self.session.check_value(number, item) is not None:
                    return None, (self.tr("Paste refused: “%1” (row %2, item %3) is not a finite number within "
                                          "±1,000,000; nothing changed.")
                                  .replace("%1", item[:40]).replace("%2", str(r + 1)).replace("%3", str(c + 1)))
                row.append(number)
            rows.append(row)
        return rows, ""

    def paste(self) -> bool:
        """Paste the clipboard's rows of numbers at the selected cell (clipped to the table) in one
        undo step; refuse the whole paste if any entry is not a usable number."""
        rows, problem = self._parse_block(QGuiApplication.clipboard().text())
        if rows is None:
            self.session.message.emit(problem)
            return False
        name = self.current_tensor()
        changed = np.array(self.session.tensor(name), dtype=np.float64)
        block = changed[self.editor.model.head] if changed.ndim == 3 else changed[np.newaxis, :] if changed.ndim == 1 else changed
        start = self.editor.table.currentIndex()
        top, left = (start.row(), start.column()) if start.isValid() else (0, 0)
        placed = left_out = 0
        for r, row in enumerate(rows):
            for c, number in enumerate(row):
                if top + r < block.shape[0] and left + c < block.shape[1]:
                    block[top + r, left + c] = number
                    placed += 1
                else:
                    left_out += 1
        height = min(len(rows), block.shape[0] - top)
        width = min(max(map(len, rows)), block.shape[1] - left)
        text = self.tr("Paste %1 into %2").replace("%1", f"{height}×{width}").replace("%2", name)
        done = self.session.set_tensor(name, changed, text)
        if done and left_out:
            self.session.message.emit(self.tr("Pasted %1 numbers; %2 fell outside the table and were left out.")
                                      .replace("%1", str(placed)).replace("%2", str(left_out)))
        return done

    # --- fills ----------------------------------------------------------------------------
    def fill_zero(self) -> bool:
        return self.session.fill_tensor(self.current_tensor(), "zero")

    def fill_identity(self) -> bool:
        return self.session.fill_tensor(self.current_tensor(), "identity")

    def fill_random(self) -> bool:
        """Random with the shown seed, then advance the seed so the next click differs."""
        seed = self.seed_spin.value()
        done = self.session.fill_tensor(self.current_tensor(), "random", seed)
        if done and seed < self.seed_spin.maximum():
            self.seed_spin.setValue(seed + 1)
        return done

    def reset(self) -> bool:
        return self.session.reset_tensor(self.current_tensor())
