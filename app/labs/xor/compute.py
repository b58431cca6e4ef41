"""Part ⑤ of the two-neuron lab: one sentence through one neuron, every product written out."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QBoxLayout, QButtonGroup, QFrame, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from app import i18n
from app.labs.fonts import own_fonts
from app.labs.xor.common import BIAS_NEURON, FORMULA_PT, TEXT_PT, esc, label, set_text, trimmed
from app.widgets.appearance import appearance
from app.widgets.style import font
from core.labs import xor as lab


class XorComputePart(QWidget):
    """Neuron buttons (the explorer's hidden-unit column follows) and the column expansion."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("xorComputePage")
        self.session = session
        layout = self.page_layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 4)
        row = self.buttons_row = QHBoxLayout()
        self.compute_hint = label("xorComputeHint", TEXT_PT)
        row.addWidget(self.compute_hint, 1)
        self.neuron_buttons = QButtonGroup(self)
        self.neuron_buttons.setExclusive(True)
        for j in range(2):
            button = QPushButton()
            button.setObjectName(f"xorNeuron{j + 1}")
            button.setCheckable(True)
            button.setFont(font(TEXT_PT))
            self.neuron_buttons.addButton(button, j)
            row.addWidget(button)
        self.neuron_buttons.button(BIAS_NEURON).setChecked(True)
        # A neuron is the explorer's hidden-unit column too: choosing one selects mlp.hook_post there.
        self.neuron_buttons.idClicked.connect(lambda j: self.session.select(hook="mlp.hook_post", column=j))
        layout.addLayout(row)
        self.expansion_label = label("xorExpansion", FORMULA_PT + 1)
        self.expansion_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        own_fonts(self.expansion_label)                  # sized by _follow_appearance
        frame = QFrame()
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        frame_layout = QVBoxLayout(frame)
        frame_layout.addWidget(self.expansion_label)
        frame_layout.addStretch(1)
        layout.addWidget(frame, 1)
        self.retranslate()
        appearance().changed.connect(self._follow_appearance)
        self._follow_appearance()

    def _follow_appearance(self) -> None:
        """Presenting, the hint steps aside (the lesson's caption says it), the neuron buttons stand
        in a column right of the expansion, and the expansion is set in the lab's text size (16.5 pt
        at 150 %), not its formula size: at 1024×768 with 150 % zoom all its lines fit the page
        (it scrolled 66 px, zh 72), each still one line."""
        presenting = appearance().presenting
        self.compute_hint.setVisible(not presenting)
        self.page_layout.setDirection(QBoxLayout.Direction.RightToLeft if presenting
                                      else QBoxLayout.Direction.TopToBottom)
        self.buttons_row.setDirection(QBoxLayout.Direction.TopToBottom if presenting
                                      else QBoxLayout.Direction.LeftToRight)
        self.page_layout.setAlignment(self.buttons_row, Qt.AlignmentFlag.AlignTop if presenting
                                      else Qt.AlignmentFlag(0))
        self.expansion_label.setFont(font(appearance().points(TEXT_PT if presenting else FORMULA_PT + 1)))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.compute_hint.setText(self.tr("Click a row of the table, then a neuron:"))
        for j in range(2):
            self.neuron_buttons.button(j).setText(self.tr("Neuron %1").replace("%1", str(j + 1)))

    def follow_selection(self) -> None:
        """A hidden unit selected elsewhere (a lesson step, the explorer) checks its neuron here."""
        s = self.session
        if s.selected_hook in ("mlp.hook_pre", "mlp.hook_post"):
            button = self.neuron_buttons.button(s.selected_index()[1])
            if button is not None and not button.isChecked():
                button.setChecked(True)

    def refresh(self) -> None:
        s = self.session
        state = s.state                  # one snapshot per refresh (each one hands out views)
        row = s.selected_index("hook_resid_post")[0]
        chosen = max(0, self.neuron_buttons.checkedId())
        terms = lab.output_terms(s.config, state.weights, s.trace, row)
        x = state.inputs[row]
        none = s.config.activation == "identity"

        def activation_step(t: lab.NeuronTerms) -> str:
            return self.tr("no activation, h = z = %1").replace("%1", trimmed(t.h)) if none else t.activation_text()

        lines = [self.tr("<b>%1</b>: p = %2, n = %3").replace("%1", esc(i18n.with_gloss(s.tokens[row])))
                 .replace("%2", trimmed(x[0])).replace("%3", trimmed(x[1]))]
        focus = terms.neurons[chosen]
        lines.append(self.tr("<b>Neuron %1</b> reads p and n with its column of W_in and adds its bias:")
                     .replace("%1", str(chosen + 1)))
        lines.append("&nbsp;&nbsp;&nbsp;z = " + esc(focus.z_text()))
        lines.append("&nbsp;&nbsp;&nbsp;→ " + esc(activation_step(focus)))
        lines.append("&nbsp;&nbsp;&nbsp;→ " + self.tr("× write-back %1: %2").replace("%1", esc(trimmed(focus.write_back)))
                     .replace("%2", f"<b>{esc(focus.write_text())}</b>"))
        for other in terms.neurons:
            if other.neuron == chosen:
                continue
            lines.append(self.tr("Neuron %1: z = %2 → %3 → writes %4")
                         .replace("%1", str(other.neuron + 1)).replace("%2", esc(other.z_text()))
                         .replace("%3", esc(activation_step(other)))
                         .replace("%4", esc(lab.with_plus(other.contribution))))
        lines.append(self.tr("Sum: ŷ = neuron 1 + neuron 2 + b_out = <b>%1</b>").replace("%1", esc(terms.sum_text())))
        target = float(state.targets[row, 0])
        right = bool(lab.verdicts(np.array([terms.total]), np.array([target]))[0])
        lines.append((self.tr("target %1: right ✓") if right else self.tr("target %1: wrong ✗"))
                     .replace("%1", trimmed(target)))
        set_text(self.expansion_label, "<br>".join(lines))
