"""Selectors for the block's options (each change goes to the Session as one undo step), and the
checks: what must hold in any healthy trace, as core finds it."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSignalBlocker, QSize
from PySide6.QtWidgets import (QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QSizePolicy, QSpinBox,
                               QWidget)

from core.analysis import qk_norm_invariants
from core.config import ACTIVATIONS, MASKS, MAX_DIM, NORMS, PLACEMENTS
from core.numbers import format_exact, format_short, parse_number

from app.labs.base import show_only
from app.session import Change, Session
from app.widgets.appearance import ZOOM_MIN, appearance
from app.widgets.fitted_combo import FittedComboBox
from app.widgets.flow_layout import FlowLayout
from app.widgets.labels import activation_label, mask_label, norm_label, placement_label
from app.explorer import finite_marks
from app.widgets.style import format_number
from core.finite import Problem


class ConfigPanel(QWidget):
    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setObjectName("configPanel")
        self.session = session

        self._labels: list[tuple[QComboBox, object]] = []
        self._sized: list[QSpinBox] = []

        def combo(name: str, options: tuple[str, ...], label, field: str) -> QComboBox:
            box = FittedComboBox()          # never narrower than its longest option, in either language
            box.setObjectName(name)
            box.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
            for option in options:
                box.addItem(label(option), option)
            box.currentIndexChanged.connect(lambda _i: self._set(**{field: box.currentData()}))
            self._labels.append((box, label))
            return box

        def check(name: str, field: str) -> QCheckBox:
            box = QCheckBox()
            box.setObjectName(name)
            box.toggled.connect(lambda on: self._set(**{field: on}))
            return box

        def spin(name: str, low: int, high: int, field: str) -> QSpinBox:
            box = QSpinBox()
            box.setObjectName(name)
            box.setRange(low, high)
            box.setKeyboardTracking(False)     # typing "12" is one change to 12, not 1 then 12
            box.valueChanged.connect(lambda value: self._set(**{field: value}))
            box.setSizePolicy(QSizePolicy.Fixed, QSizePolicy.Fixed)
            self._sized.append(box)
            return box

        self.activation = combo("configActivation", ACTIVATIONS, activation_label, "activation")
        self.gated = check("configGated", "gated")
        self.norm = combo("configNorm", NORMS, norm_label, "norm")
        self.placement = combo("configPlacement", PLACEMENTS, placement_label, "norm_placement")
        self.mask = combo("configMask", MASKS, mask_label, "mask")
        self.attention = check("configAttention", "attention")
        self.residual = check("configResidual", "residual")
        self.eps = QLineEdit()
        self.eps.setObjectName("configEps")
        self.eps.editingFinished.connect(self._eps_entered)
        self.d_ff = spin("configDff", 1, MAX_DIM, "d_ff")
        self.n_heads = spin("configHeads", 1, MAX_DIM, "n_heads")
        self.d_head = spin("configDhead", 1, MAX_DIM, "d_head")
        self.activation_label, self.norm_label, self.mask_label = QLabel(), QLabel(), QLabel()

        switches = QWidget()             # one line, or two on a narrow panel: never a clipped word
        switch_flow = FlowLayout(switches, spacing=8)
        for box in (self.attention, self.residual, self.gated):
            switch_flow.addWidget(box)
        # The sizes on one line, wrapping only on a narrow panel; symbols as labels beside the
        # boxes (not prefixes inside them), so a 4-digit size fits.
        sizes = QWidget()
        flow = FlowLayout(sizes, spacing=4)
        for symbol, box in (("d_ff", self.d_ff), ("H", self.n_heads), ("d_head", self.d_head)):
            pair = QWidget()
            row = QHBoxLayout(pair)
            row.setContentsMargins(0, 0, 4, 0)
            row.setSpacing(3)
            label = QLabel(symbol)
            label.setBuddy(box)
            row.addWidget(label)
            row.addWidget(box)
            flow.addWidget(pair)
        # ε beside the norm it belongs to: one line less than a line of its own.
        eps_label = self.eps_label = QLabel("ε")
        eps_label.setBuddy(self.eps)
        self.eps.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self.eps.setMaximumWidth(self.eps.fontMetrics().horizontalAdvance("1.2345678e−05") + 12)
        self.placement_label = QLabel()
        norm_fields = self.norm_fields = QWidget()          # the norm's box, ε and its field: one line
        norm_row = QHBoxLayout(norm_fields)
        norm_row.setContentsMargins(0, 0, 0, 0)
        norm_row.setSpacing(6)
        norm_row.addWidget(self.norm, 1)
        norm_row.addWidget(eps_label)
        norm_row.addWidget(self.eps)
        grid = QGridLayout(self)
        grid.setContentsMargins(4, 2, 4, 2)
        grid.setVerticalSpacing(3)
        grid.setHorizontalSpacing(6)
        self.switches, self.sizes = switches, sizes
        grid.addWidget(switches, 0, 0, 1, 2)
        # Each row's name and its fields (two grid rows each: the fields go under the name on a
        # narrow panel, see _place_names; an empty grid row takes no room).
        self._rows = ((self.activation_label, self.activation), (self.norm_label, norm_fields),
                      (self.placement_label, self.placement), (self.mask_label, self.mask))
        self._names_above: bool | None = None
        self._place_names(False)
        grid.addWidget(sizes, 1 + 2 * len(self._rows), 0, 1, 2)   # the symbols name them: no label, the whole line
        grid.setColumnStretch(1, 1)
        grid.setRowStretch(2 + 2 * len(self._rows), 1)   # a taller box keeps its options together at the top
        self._fit_sizes()
        session.changed.connect(lambda change: change & Change.TRACE and self.refresh())
        appearance().changed.connect(self._presenting_changed)
        self.retranslate()
        self.refresh()

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.LanguageChange:
            self.retranslate()
            self._arrange()
        elif event.type() == QEvent.FontChange:
            self._fit_sizes()
            self._arrange()

    # --- short of width -----------------------------------------------------------------------
    # The rows' names (Activation, Norm, Placement, Mask) stand beside their fields wherever the
    # panel has the width for a name and the widest option. Short of it:
    # - at the desk, each name goes above its field (150 % on 1024 px: beside them, the names
    #   and "full (every token sees all)" made the window 1,116 px wide, and the column, held
    #   narrower, cut them to "Activatior", "Placemen" and the norm's box to "LayerN");
    # - presenting, the names step aside while the panel is narrower than they and the widest
    #   option need on a projector (150 % on 1024 px: beside the plots and the inspector, the
    #   window grew 30–41 px for them); the options name themselves (ReLU, LayerNorm, post-norm
    #   (after the sum), full (every token sees all)). At 100 % the window has the width for them
    #   (1024 px and up): nothing steps aside there; nor on the shelf beside the plots, whose
    #   share is made from its least width (app/presentation_panels.py: `hold_width`).
    _held = False

    def hold_width(self, held: bool) -> None:
        """`held`: the panel asks for the width that shows its rows' names (its names stay)."""
        if held != self._held:
            self._held = held
            self._presenting_changed()

    def _may_step_aside(self) -> bool:
        look = appearance()
        return look.presenting and look.zoom > ZOOM_MIN and not self._held

    def _row_names(self) -> tuple[QLabel, ...]:
        return tuple(name for name, _fields in self._rows)

    def _least_width(self, names: str) -> int:
        """The panel's least width with the rows' names "beside" their fields, "above" them or
        "aside" (hidden)."""
        grid = self.layout()
        spacing = grid.horizontalSpacing()
        fields = max(self.activation.minimumSizeHint().width(), self.norm_fields.minimumSizeHint().width(),
                     self.placement.minimumSizeHint().width(), self.mask.minimumSizeHint().width())
        widest_name = max(name.minimumSizeHint().width() for name in self._row_names())
        if names == "beside":
            fields += spacing + widest_name
        elif names == "aside":
            # the names' column gap stays with the names aside: the whole-width rows of the
            # switches and the sizes start in that column
            fields += spacing
        else:
            fields = max(fields, widest_name)
        margins = grid.contentsMargins()
        return max(fields, self.switches.minimumSizeHint().width(), self.sizes.minimumSizeHint().width()) \
            + margins.left() + margins.right()

    def _narrow_names(self) -> str:
        """Where the names go on a panel short of the width beside them: "aside" presenting on a
        projector, "above" at the desk, "beside" (they stay: the least width counts them) else."""
        if self._may_step_aside():
            return "aside"
        return "beside" if appearance().presenting else "above"

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        least = super().minimumSizeHint()
        narrow = self._narrow_names()
        return least if narrow == "beside" else QSize(self._least_width(narrow), least.height())

    def sizeHint(self) -> QSize:  # noqa: N802
        hint = super().sizeHint()
        if self._names_above or not self.activation_label.isVisibleTo(self):
            hint.setWidth(max(hint.width(), self._least_width("beside")))   # the width that shows the names beside
        return hint

    def _place_names(self, above: bool) -> None:
        """Each row's name beside its fields, or above them (the fields then take the whole width)."""
        if above == self._names_above:
            return
        self._names_above = above
        grid = self.layout()
        for position, (name, fields) in enumerate(self._rows):
            row = 1 + 2 * position
            grid.removeWidget(name)
            grid.removeWidget(fields)
            if above:
                grid.addWidget(name, row, 0, 1, 2)
                grid.addWidget(fields, row + 1, 0, 1, 2)
            else:
                grid.addWidget(name, row, 0)
                grid.addWidget(fields, row, 1)

    def _arrange(self) -> None:
        """The rows' names beside their fields while the width is enough, else above them (at the
        desk) or aside (presenting, short of width)."""
        narrow = "beside" if self.width() >= self._least_width("beside") else self._narrow_names()
        self._place_names(narrow == "above")
        show_only(self._row_names(), self._row_names() if narrow == "aside" else (), self)

    def _presenting_changed(self) -> None:
        self.updateGeometry()                  # presenting or not: another least width
        self._arrange()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._arrange()

    def _fit_sizes(self) -> None:
        """Size boxes as wide as four digits and their arrows (Qt would reserve room for MAX_DIM's
        width and more), so the three fit one line of the side panel."""
        for box in self._sized:
            box.setFixedWidth(box.fontMetrics().horizontalAdvance("0000") + box.fontMetrics().height() + 14)

    def retranslate(self) -> None:
        self.attention.setText(self.tr("attention"))
        self.residual.setText(self.tr("residual"))
        self.gated.setText(self.tr("gated (SwiGLU / GEGLU)"))
        self.activation_label.setText(self.tr("Activation"))
        self.norm_label.setText(self.tr("Norm"))
        self.mask_label.setText(self.tr("Mask"))
        self.placement_label.setText(self.tr("Placement"))
        self.eps.setToolTip(self.tr("ε added before the square root in the norm; press Enter to apply"))
        for box, label in self._labels:
            with QSignalBlocker(box):
                for item in range(box.count()):
                    box.setItemText(item, label(box.itemData(item)))

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
    """Calm readouts of what must hold; a violated one turns red. Every invariant core gives is
    shown: those it has words for with them, any other by core's own symbolic label."""

    LABELS = {
        "mean": "mean = 0", "var": "variance = 1", "ms": "mean square = 1",
        "rowsum": "rows of p sum to 1", "sum": "sum exact",
    }
    TIPS = {
        "ln1.mean": "Each token's normalized row has mean 0.",
        "ln2.mean": "Each token's normalized row has mean 0.",
        "ln1.var": "Each token's normalized row has variance 1 (less when ε is large against the row's spread, 0 on a constant row with ε = 0).",
        "ln2.var": "Each token's normalized row has variance 1 (less when ε is large against the row's spread, 0 on a constant row with ε = 0).",
        "ln1.ms": "Each token's RMS-normalized row has mean square 1.",
        "ln2.ms": "Each token's RMS-normalized row has mean square 1.",
        "q_norm.ms": "QK-Norm: each head's normalized query row has mean square 1, before the gain.",
        "k_norm.ms": "QK-Norm: each head's normalized key row has mean square 1, before the gain.",
        "pattern.rowsum": "Every row of every head's attention pattern sums to 1.",
        "resid_mid.sum": "The residual stream equals exactly the sum of its two parts.",
        "resid_post.sum": "The residual stream equals exactly the sum of its two parts.",
    }
    WHERE = {"ln1": "LN1", "ln2": "LN2", "pattern": "", "resid_mid": "x + a", "resid_post": "m + f",
             "q_norm": "q_norm", "k_norm": "k_norm"}

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setObjectName("invariantsPanel")
        self.session = session
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(4, 2, 4, 2)
        self.grid.setVerticalSpacing(1)
        self.grid.setHorizontalSpacing(8)
        self.labels: dict[str, QLabel] = {}
        self._tips: dict[str, tuple] = {}     # key → (what its tooltip was formatted from, the tooltip)
        self._shown: dict[str, tuple] = {}    # key → (its verdict, its worst value if violated): text shown
        self._found: dict[str, object] = {}   # key → the invariant its label and tooltip are of
        self._columns = 0                    # two columns where every check fits half the width, else one
        self._place_due = False              # the columns are to be chosen again at the next refresh
        self.empty = QLabel()
        self.empty.setObjectName("invariantsEmpty")
        self.empty.setWordWrap(True)
        self.grid.addWidget(self.empty, 0, 0, 1, 2)
        self.finite = finite_marks.watch_for(session)
        self.finite_label = QLabel()             # a value that is not finite (or 0/0 of ε = 0): where and why
        self.finite_label.setObjectName("invariantFinite")
        self.finite_label.setWordWrap(True)
        self.finite_label.setVisible(False)
        self.grid.addWidget(self.finite_label, 99, 0, 1, 2)
        session.changed.connect(lambda change: change & Change.TRACE and self.refresh())
        appearance().changed.connect(self._recolour)
        self.retranslate()

    def _recolour(self) -> None:
        self._place_due = True                       # another zoom: other widths
        for label in self.labels.values():
            label.setProperty("violated", None)      # styled again by refresh, in the theme's colours
        self.refresh()

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.LanguageChange:
            self.retranslate()
        elif event.type() == QEvent.FontChange:
            # A label's own style sheet keeps the font it had when it was styled; zoom (or
            # presenting) sets the application's font after appearance().changed restyled the
            # labels, so style them again in the font the panel now has.
            self._recolour()

    def retranslate(self) -> None:
        self.empty.setText(self.tr("Nothing to check: this block has no norm, no attention and no residual."))
        self._shown.clear()                    # other words
        self._tips.clear()
        self.refresh()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        # A check's tooltip lists its values: worded when asked for, not after every edit.
        if event.type() == QEvent.Type.ToolTip:
            key = watched.objectName().removeprefix("invariant_")
            if watched is self.labels.get(key) and key in self._found:
                self._set_tooltip(watched, self._found[key])
        return super().eventFilter(watched, event)

    def tooltip_of(self, key: str) -> str:
        """What check `key`'s tooltip says now (what hovering it shows)."""
        label = self.labels[key]
        self._set_tooltip(label, self._found[key])
        return label.toolTip()

    def _set_tooltip(self, label: QLabel, inv) -> None:
        words = finite_marks.number_words()
        tip = self.TIPS.get(inv.key)
        head = self.tr(tip) if tip else inv.label
        shown = inv.values.ravel()[:64]
        # formatted again only when its numbers (or its words) changed
        tip_key = (head, shown.tobytes(), shown.dtype.str, tuple(words.items()) if words else None)
        if self._tips.get(inv.key, (None,))[0] != tip_key:
            tooltip = head + "\n" + ", ".join(format_number(float(v), words=words) for v in shown)
            self._tips[inv.key] = (tip_key, tooltip)
        tooltip = self._tips[inv.key][1]
        if label.toolTip() != tooltip:
            label.setToolTip(tooltip)

    def _place(self) -> None:
        """Two columns when every check fits half the panel, one otherwise: never a clipped check."""
        if not self.labels:
            return
        widths = [label.fontMetrics().horizontalAdvance(label.text()) + 4 for label in self.labels.values()]
        two = max(widths[0::2]) + max(widths[1::2], default=0) + self.grid.horizontalSpacing() + 8
        columns = 2 if two <= self.width() else 1
        if columns == self._columns:
            return
        self._columns = columns
        for position, label in enumerate(self.labels.values()):
            self.grid.removeWidget(label)
            self.grid.addWidget(label, 1 + position // columns, position % columns, 1, 3 - columns)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        """At the desk, one column's least width: two columns are placed only where the width has
        room for them (laid out two abreast while the window was built, at 150 % the checks held
        the right-hand column at 457 px and the window 55 px wider than a 1024 px screen)."""
        least = super().minimumSizeHint()
        if self._columns != 2 or appearance().presenting:
            return least
        shown = [widget for widget in (*self.labels.values(), self.empty, self.finite_label) if widget.isVisibleTo(self)]
        margins = self.grid.contentsMargins()
        widest = max((widget.minimumSizeHint().width() for widget in shown), default=0)
        return QSize(min(least.width(), widest + margins.left() + margins.right()), least.height())

    def found(self) -> list:
        """Every invariant core checks on this trace: the norms, the pattern, the residual sums
        and, with QK-Norm, its rows."""
        return self.session.invariants() + qk_norm_invariants(self.session.config, self.session.trace)

    def text_of(self, invariant) -> str:
        """✓ or ✗, where, and what holds; an invariant this panel has no words for reads as core labels it."""
        prefix, _, kind = invariant.key.partition(".")
        mark = "✓" if invariant.ok else "✗"
        if prefix in self.WHERE and kind in self.LABELS:
            what = self.tr(self.LABELS[kind])
            where = self.WHERE[prefix]         # "LN1: mean = 0", "LN1：均值 = 0"
            text = f"{mark} {self.tr('%1: %2').replace('%1', where).replace('%2', what) if where else what}"
        else:
            text = f"{mark} {invariant.label} = {format_number(invariant.expected, trim=True)}"
        if not invariant.ok:
            text += f"  ({format_number(invariant.worst, words=finite_marks.number_words())})"
        return text.replace("  ", " ").strip()

    def refresh(self) -> None:
        found = self.found()
        keys = [inv.key for inv in found]
        self.empty.setVisible(not found)
        if keys != list(self.labels):
            for label in self.labels.values():
                self.grid.removeWidget(label)
                label.setParent(None)          # at once: a new label takes its objectName
                label.deleteLater()
            self.labels = {}
            for key in keys:
                label = QLabel()
                label.setObjectName(f"invariant_{key}")
                label.installEventFilter(self)
                self.labels[key] = label
            self._columns = 0
            self._shown.clear()
        placed = self._columns != 0 and not self._place_due
        for inv in found:
            label = self.labels[inv.key]
            self._found[inv.key] = inv
            # The text says the verdict (and the worst value of a violated check): an edit that
            # keeps them words nothing again.
            verdict = (inv.ok, None if inv.ok else float(inv.worst))
            if self._shown.get(inv.key) != verdict or not label.text():
                text = self.text_of(inv)
                self._shown[inv.key] = verdict
                if label.text() != text:
                    label.setText(text)
                    placed = False
            if label.property("violated") is not (not inv.ok):
                # Restyling is costly (a re-polish): only when the verdict flips (or the theme changes).
                label.setProperty("violated", not inv.ok)
                colours = appearance().colours
                label.setStyleSheet(f"color: {colours.good};" if inv.ok else f"color: {colours.bad}; font-weight: bold;")
            if label.underMouse():
                self._set_tooltip(label, inv)     # (a tooltip on show follows the edit)
            elif label.toolTip():
                label.setToolTip("")              # worded again when next asked for (eventFilter)
        self._found = {inv.key: inv for inv in found}
        self._show_finite()
        if not placed:                       # the same texts at the same width: the columns stand
            self._place_due = False
            self._place()

    def _show_finite(self) -> None:
        """✗ in red where the trace stopped being finite (the first hook, and how many follow); a
        norm's 0/0 of ε = 0 on a constant row in amber. Nothing when every value is ordinary."""
        issues = [issue for issue in self.finite.all_issues()
                  if issue.problem.severe or issue.problem is Problem.ZERO_SPREAD]
        severe = [issue for issue in issues if issue.problem.severe]
        if severe:
            first = severe[0]
            others = len({issue.hook for issue in severe}) - 1
            text = "✗ " + self.tr("Not finite from %1: %2").replace("%1", first.hook).replace(
                "%2", finite_marks.issue_text(first))
            if others:
                # the space is the translation's: none before a Chinese （
                text += self.tr(" (and %1 hooks after it)").replace("%1", str(others))
        elif issues:
            text = "⚠ " + "; ".join(f"{issue.hook}: {finite_marks.issue_text(issue)}" for issue in issues[:2])
        else:
            text = ""
        colour = finite_marks.problem_colour(bool(severe)).name()
        if text != self.finite_label.text() or self.finite_label.property("colour") != colour:
            self.finite_label.setText(text)
            self.finite_label.setProperty("colour", colour)
            self.finite_label.setStyleSheet(f"color: {colour}; font-weight: bold;")
        if self.finite_label.isVisibleTo(self) != bool(text):
            self.finite_label.setVisible(bool(text))
