"""Open a layer of the trained model in the explorer, knock neurons out, and see what the model
predicts with the learner's changes beside what it predicts as trained."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QGridLayout, QHBoxLayout, QListWidget, QListWidgetItem,
                               QPushButton, QVBoxLayout, QWidget)

from app import i18n
from app.labs.model.common import NeuronPicker, Part, esc, label, set_text, show_gloss
from app.labs.model.state import TYPED, What
from app.labs.model.typed import PredictionsTable
from app.widgets.fence import SizeFence
from app.widgets.flow_layout import FlowLayout


class ModelExplorerPart(Part):
    def __init__(self, state, parent: QWidget | None = None):
        super().__init__(state, parent)
        self.setObjectName("modelExplorerPart")
        self.intro = label("modelExplorerIntro")
        self.picker = NeuronPicker(state, "modelExplorer")
        self.open_button = QPushButton()
        self.open_button.setObjectName("modelOpenLayer")
        self.status = label("modelLinkStatus")
        self.gloss = label("modelExplorerGloss")     # English: what the typed sample poem says
        self.gloss.hide()
        self.reopen = QPushButton()
        self.reopen.setObjectName("modelReopen")
        self.knock_button = QPushButton()
        self.knock_button.setObjectName("modelKnockOut")
        self.knocked_title = label("modelKnockedTitle")
        self.knocked = QListWidget()
        self.knocked.setObjectName("modelKnockedOut")
        self.knocked.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.knocked.setWordWrap(True)                # "layer 2, neuron #303 (in the explorer)" whole
        self.restore_button = QPushButton()
        self.restore_button.setObjectName("modelRestore")
        self.restore_all_button = QPushButton()
        self.restore_all_button.setObjectName("modelRestoreAll")
        self.trained_title = label("modelTrainedTitle")
        self.trained = PredictionsTable("modelPredictionsTrained")
        self.changed_title = label("modelChangedTitle")
        self.changed = PredictionsTable("modelPredictionsChanged")

        actions = QWidget()              # one line, or two on a narrow panel: never a button cut off
        flow = FlowLayout(actions, spacing=6)
        for widget in (self.picker, self.open_button, self.knock_button):
            flow.addWidget(widget)
        restore = QHBoxLayout()
        restore.addWidget(self.restore_button)
        restore.addWidget(self.restore_all_button)
        restore.addStretch(1)
        knocked = QVBoxLayout()
        knocked.addWidget(self.knocked_title)
        knocked.addWidget(self.knocked, 1)
        knocked.addLayout(restore)
        tables = QGridLayout()
        tables.addWidget(self.trained_title, 0, 0)
        tables.addWidget(self.changed_title, 0, 1)
        tables.addWidget(self.trained, 1, 0)
        tables.addWidget(self.changed, 1, 1)
        body = self.body = QHBoxLayout()
        body.addLayout(knocked, 1)
        body.addLayout(tables, 2)          # English: 3, for the predictions' glosses (retranslate)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.intro)
        # The buttons' texts follow the neuron picked: a fence keeps their relayout from climbing
        # to the window one level per event-loop pass (each pass repainted the lab's top half).
        layout.addWidget(SizeFence(actions))
        layout.addWidget(self.status)
        layout.addWidget(self.gloss)
        layout.addWidget(self.reopen, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addLayout(body, 1)

        self.open_button.clicked.connect(lambda: state.open_in_explorer(state.layer))
        self.reopen.clicked.connect(lambda: state.open_in_explorer(state.link.layer) if state.link else None)
        self.knock_button.clicked.connect(lambda: state.knock_out(state.layer, state.neuron))
        self.restore_button.clicked.connect(self._restore_selected)
        self.restore_all_button.clicked.connect(state.restore_all)
        self.retranslate()

    def retranslate(self) -> None:
        self.picker.retranslate()
        c = self.state.config
        set_text(self.intro, esc(self.tr(
            "Open one layer of the trained model as the explorer's block: its real weights (d = %1, %2 heads, "
            "SwiGLU width %3), the text on screen as its tokens and the stream entering the layer as its inputs. "
            "Edit a weight in the explorer's weight table, or knock a neuron out here: the model is recomputed "
            "from that layer on, and its predictions follow.")
            .replace("%1", str(c.d_model)).replace("%2", str(c.n_heads)).replace("%3", str(c.d_ff))))
        self.reopen.setText(self.tr("Open it again for the text on screen (your edits are kept)"))
        self.restore_button.setText(self.tr("Restore the selected"))
        self.restore_all_button.setText(self.tr("Restore all"))
        set_text(self.knocked_title, "<b>" + esc(self.tr("Knocked-out neurons")) + "</b>")
        set_text(self.trained_title, "<b>" + esc(self.tr("As trained")) + "</b>")
        set_text(self.changed_title, "<b>" + esc(self.tr("With your changes (change in points)")) + "</b>")
        for table in (self.trained, self.changed):
            table.set_headers(self.tr("Next"), self.tr("Probability"), self.tr("Meaning"))
        self.body.setStretch(1, 3 if i18n.language() == "en" else 2)
        self._gloss()

    def _gloss(self) -> None:
        """The text on screen is the learner's typed text: in English, the gloss of the sample poem."""
        show_gloss(self.gloss, self.state.typed if self.state.source == TYPED else "")

    def _restore_selected(self) -> None:
        chosen = [item.data(Qt.ItemDataRole.UserRole) for item in self.knocked.selectedItems()]
        for layer, neuron in chosen:
            self.state.restore(layer, neuron)

    def redraw(self, what: What) -> None:
        s = self.state
        if what & (What.LAYER | What.NEURON | What.RUN):
            self.picker.refresh()
        self.open_button.setText(self.tr("Open layer %1 in the explorer").replace("%1", str(s.layer)))
        self.knock_button.setText(self.tr("Knock out neuron #%1 of layer %2").replace("%1", str(s.neuron))
                                  .replace("%2", str(s.layer)))
        if what & (What.RUN | What.LINK):
            self._status()
            self._gloss()
            self._knocked()
            self.trained.show_predictions(s.predictions(trained=True))
            changed = s.predictions()
            self.changed.show_predictions(changed, s.trained_probabilities([ch for ch, _ in changed]))

    def _status(self) -> None:
        s = self.state
        self.reopen.setVisible(s.link_is_stale())
        if s.options_changed():
            set_text(self.status, esc(self.tr(
                "Layer %1 was opened in the explorer, but its block options were changed there: that block is "
                "no longer a layer of this model, which runs as trained until the options are set back (Undo).")
                .replace("%1", str(s.link.layer))))
            return
        if not s.is_linked():
            set_text(self.status, esc(self.tr("No layer of the model is open in the explorer.")))
            return
        layer = s.link.layer
        lines = [self.tr("Layer %1 is open in the explorer with %2 characters as tokens.")
                 .replace("%1", str(layer)).replace("%2", str(len(s.link.chars)))]
        changes = s.explorer_changes()
        if changes:
            lines.append(self.tr("You changed %1 there: the model is recomputed from layer %2 on.")
                         .replace("%1", ", ".join(changes)).replace("%2", str(layer)))
            knocked = sum(1 for _l, _n, inside in s.knocked_out() if inside)
            if knocked:
                lines.append(self.tr("(Knocking out a neuron zeroes its column of W_in and W_gate and its row of "
                                     "W_out: %1 knocked out there.)").replace("%1", str(knocked)))
        else:
            lines.append(self.tr("Its weights are as trained."))
        if s.inputs_edited():
            lines.append(self.tr("Edits of the layer's inputs stay in the explorer: in the model, a layer's input "
                                 "comes from the layers below."))
        if s.link_is_stale():
            lines.append(self.tr("The explorer shows this layer for another text than the one on screen."))
        set_text(self.status, esc(i18n.sentences(lines)))

    def _knocked(self) -> None:
        entries = self.state.knocked_out()
        self.knocked.clear()
        for layer, neuron, inside in entries:
            text = self.tr("Layer %1, neuron #%2").replace("%1", str(layer)).replace("%2", str(neuron))
            item = QListWidgetItem(text)
            if inside:
                item.setText(text + " " + self.tr("(in the explorer)"))
                item.setToolTip(self.tr("Knocked out in the explorer's block: Undo there brings it back too."))
            item.setData(Qt.ItemDataRole.UserRole, (layer, neuron))
            self.knocked.addItem(item)
        if not entries:
            item = QListWidgetItem(self.tr("None: every neuron is working."))
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.knocked.addItem(item)
        self.restore_button.setEnabled(bool(entries))
        self.restore_all_button.setEnabled(bool(entries))
