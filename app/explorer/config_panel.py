"""Selectors for the block's options: each change goes to the Session as one undo step."""
from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QGridLayout, QHBoxLayout, QLabel, QLineEdit,
                               QSpinBox, QWidget)

from core.config import ACTIVATIONS, MASKS, MAX_DIM, NORMS, PLACEMENTS

from core.numbers import format_exact, format_short, parse_number

from app.session import Change, Session
from app.widgets.labels import activation_label, mask_label, norm_label, placement_label
from app.widgets.style import format_number


class ConfigPanel(QWidget):
    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setObjectName("configPanel")
        self.session = session

        def combo(name: str, options: tuple[str, ...], label, field: str) -> QComboBox:
            box = QComboBox()
            box.setObjectName(name)
            box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(12)
            for option in options:
                box.addItem(label(option), option)
            box.currentIndexChanged.connect(lambda _i: self._set(**{field: box.currentData()}))
            return box

        def check(name: str, text: str, field: str) -> QCheckBox:
            box = QCheckBox(text)
            box.setObjectName(name)
            box.toggled.connect(lambda on: self._set(**{field: on}))
            return box

        def spin(name: str, low: int, high: int, field: str) -> QSpinBox:
            box = QSpinBox()
            box.setObjectName(name)
            box.setRange(low, high)
            box.setKeyboardTracking(False)     # typing "12" is one change to 12, not 1 then 12
            box.valueChanged.connect(lambda value: self._set(**{field: value}))
            return box

        self.activation = combo("configActivation", ACTIVATIONS, activation_label, "activation")
        self.gated = check("configGated", self.tr("gated (SwiGLU / GEGLU)"), "gated")
        self.norm = combo("configNorm", NORMS, norm_label, "norm")
        self.placement = combo("configPlacement", PLACEMENTS, placement_label, "norm_placement")
        self.mask = combo("configMask", MASKS, mask_label, "mask")
        self.attention = check("configAttention", self.tr("attention"), "attention")
        self.residual = check("configResidual", self.tr("residual"), "residual")
        self.eps = QLineEdit()
        self.eps.setObjectName("configEps")
        self.eps.setToolTip(self.tr("ε added before the square root in the norm; press Enter to apply"))
        self.eps.editingFinished.connect(self._eps_entered)
        self.d_ff = spin("configDff", 1, MAX_DIM, "d_ff")
        self.n_heads = spin("configHeads", 1, MAX_DIM, "n_heads")
        self.d_head = spin("configDhead", 1, MAX_DIM, "d_head")

        switches = QHBoxLayout()
        switches.addWidget(self.attention)
        switches.addWidget(self.residual)
        switches.addWidget(self.gated)
        switches.addStretch(1)
        # Symbols as labels beside the boxes (not prefixes inside them), so a 4-digit size fits.
        shapes = QHBoxLayout()
        for symbol, box in (("d_ff", self.d_ff), ("H", self.n_heads), ("d_head", self.d_head)):
            label = QLabel(symbol)
            label.setBuddy(box)
            shapes.addWidget(label)
            shapes.addWidget(box, 1)
        form = QFormLayout(self)
        form.setContentsMargins(4, 4, 4, 4)
        form.addRow(switches)
        form.addRow(self.tr("Activation"), self.activation)
        form.addRow(self.tr("Norm"), self.norm)
        form.addRow(self.tr("Placement"), self.placement)
        form.addRow(self.tr("Mask"), self.mask)
        form.addRow("ε", self.eps)
        form.addRow(self.tr("Sizes"), shapes)
        session.changed.connect(lambda change: change & Change.TRACE and self.refresh())
        self.refresh()

    def _set(self, **changes: object) -> None:
        if not self.session.set_config(**changes):
            self._shown = None
            self.refresh()          # refused: show the option that is still in force

    def _eps_entered(self) -> None:
        if not self.eps.isModified():
            return                  # focus merely passed through: ε stays exactly as it is
        self.eps.setModified(False)
        value = parse_number(self.eps.text())
        if value is None or not 0 <= value <= 1:
            self.session.message.emit(self.tr("ε must be a number from 0 to 1; it stays %1.")
                                      .replace("%1", format_short(self.session.config.eps)))
            self._shown = None
            self.refresh()
            return
        self._set(eps=value)

    _shown = None

    def refresh(self) -> None:
        config = self.session.config
        if config == self._shown:
            return                  # a weight edit: nothing here changes
        self._shown = config
        widgets = (self.activation, self.gated, self.norm, self.placement, self.mask, self.attention,
                   self.residual, self.eps, self.d_ff, self.n_heads, self.d_head)
        blockers = [QSignalBlocker(widget) for widget in widgets]
        self.activation.setCurrentIndex(self.activation.findData(config.activation))
        self.norm.setCurrentIndex(self.norm.findData(config.norm))
        self.placement.setCurrentIndex(self.placement.findData(config.norm_placement))
        self.mask.setCurrentIndex(self.mask.findData(config.mask))
        self.gated.setChecked(config.gated)
        self.attention.setChecked(config.attention)
        self.residual.setChecked(config.residual)
        self.eps.setText(format_exact(config.eps))   # exact: what is shown is what is used (1e−05)
        self.d_ff.setValue(config.d_ff)
        self.n_heads.setValue(config.n_heads or 1)
        self.d_head.setValue(config.d_head or 1)
        for widget in (self.mask, self.n_heads, self.d_head):
            widget.setEnabled(config.attention)
        self.placement.setEnabled(config.has_norm)
        self.eps.setEnabled(config.has_norm)
        # Without a residual the output width may differ from d_model; with one it may not.
        self.residual.setEnabled(config.output_width == config.d_model)
        del blockers


class InvariantsPanel(QWidget):
    """Calm readouts of what must hold; a violated one turns red."""

    LABELS = {
        "mean": "mean = 0", "var": "variance = 1", "ms": "mean square = 1",
        "rowsum": "attention rows sum to 1", "sum": "sum exact",
    }
    TIPS = {
        "mean": "Each token's normalized row has mean 0.",
        "var": "Each token's normalized row has variance 1 (less when ε is large against the row's spread, 0 on a constant row with ε = 0).",
        "ms": "Each token's RMS-normalized row has mean square 1.",
        "rowsum": "Every row of every head's attention pattern sums to 1.",
        "sum": "The residual stream equals exactly the sum of its two parts.",
    }

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setObjectName("invariantsPanel")
        self.session = session
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(4, 2, 4, 2)
        self.grid.setVerticalSpacing(2)
        self.labels: dict[str, QLabel] = {}
        self.empty = QLabel(self.tr("Nothing to check: this block has no norm, no attention and no residual."))
        self.empty.setObjectName("invariantsEmpty")
        self.empty.setWordWrap(True)
        self.grid.addWidget(self.empty, 0, 0, 1, 2)
        session.changed.connect(lambda change: change & Change.TRACE and self.refresh())
        self.refresh()

    def refresh(self) -> None:
        found = self.session.invariants()
        keys = [inv.key for inv in found]
        self.empty.setVisible(not found)
        if keys != list(self.labels):
            for label in self.labels.values():
                self.grid.removeWidget(label)
                label.setParent(None)          # at once: a new label takes its objectName
                label.deleteLater()
            self.labels = {}
            for row, key in enumerate(keys):
                label = QLabel()
                label.setObjectName(f"invariant_{key}")
                self.grid.addWidget(label, 1 + row // 2, row % 2)
                self.labels[key] = label
        for inv in found:
            prefix, kind = inv.key.split(".")
            where = {"ln1": "LN1:", "ln2": "LN2:", "pattern": "", "resid_mid": "x + a:", "resid_post": "m + f:"}[prefix]
            mark = "✓" if inv.ok else "✗"
            text = f"{mark} {where} {self.tr(self.LABELS[kind])}"
            if not inv.ok:
                text += f"  ({format_number(inv.worst)})"
            label = self.labels[inv.key]
            text = text.replace("  ", " ").strip()
            if label.text() != text:
                label.setText(text)
            if label.property("violated") is not (not inv.ok):
                # Restyling is costly (a re-polish): only when the verdict flips.
                label.setProperty("violated", not inv.ok)
                label.setStyleSheet("color: #1a7f37;" if inv.ok else "color: #c62828; font-weight: bold;")
            label.setToolTip(self.tr(self.TIPS[kind]) + "\n"
                             + ", ".join(format_number(float(v)) for v in inv.values.ravel()))
