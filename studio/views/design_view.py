"""DesignView: a voice made from attributes (and optionally steadied by a reference clip).

The attributes become the request's instruct; with a reference clip the request also
clones it. The view says how the two combine, because the model's behaviour is not
obvious: the reference wins where they disagree.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from studio.errors import UserError
from studio.service.requests import RenderRequest
from studio.views.design_attributes import DesignAttributes
from studio.views.generate_form import GenerateForm
from studio.views.job_slots import JobSlots
from studio.views.reference_panel import ReferencePanel
from studio.views.widgets.collapsible import CollapsibleSection
from studio.views.widgets.labels import heading_label, hint_label
from studio.views.widgets.page import headed_content, rule

STATE_PREFIX = "design"
REFERENCE_NOTE = (
    "With a reference clip, a consistent instruct steadies the clone; "
    "where they conflict, the reference wins."
)


class DesignView(JobSlots, QWidget):
    render_requested = Signal(object)  # RenderRequest
    cancel_requested = Signal()
    transcribe_requested = Signal(object)  # Path

    def __init__(self, player=None, *, recorder=None, audio_status=None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("designView")
        self.setAccessibleName("Design view")
        self.attributes = DesignAttributes()
        self.attributes.setObjectName("designAttributes")
        self.reference = ReferencePanel(player, state_prefix=STATE_PREFIX, recorder=recorder,
                                        audio_status=audio_status)
        self.reference.setObjectName("designReferencePanel")
        self.form = GenerateForm(STATE_PREFIX, player=player)
        self.form.setObjectName("designForm")

        title = heading_label("Design a voice", size_delta=5)
        subtitle = hint_label(
            "Describe the speaker or pick attributes; the model invents a voice to match.")

        referenceBody = QWidget()
        bodyLayout = QVBoxLayout(referenceBody)
        bodyLayout.setContentsMargins(0, 0, 0, 0)
        bodyLayout.addWidget(self.reference)
        self.referenceSection = CollapsibleSection("Add a reference clip (optional)", referenceBody)
        self.referenceSection.setObjectName("designReferenceSection")
        self.referenceSection.button.setToolTip(
            "Optionally clone a clip as well; the attributes then steady the clone")
        self.note = hint_label(REFERENCE_NOTE)
        self.note.setObjectName("designReferenceNote")
        self.note.setAccessibleName("How a reference clip combines with the attributes")

        content, layout = headed_content("designContent", title, subtitle)
        layout.addWidget(self.attributes)
        layout.addSpacing(8)
        layout.addWidget(self.referenceSection)
        layout.addWidget(self.note)
        layout.addSpacing(10)
        layout.addWidget(rule())
        layout.addSpacing(10)

        self.form.fill(self, content)

        self.form.generate_requested.connect(self._generate)
        self.form.cancel_requested.connect(self.cancel_requested)
        self.form.textEdit.textChanged.connect(
            lambda: self.attributes.set_target_text(self.form.text()))
        self.reference.transcribe_requested.connect(self._transcribe)
        self.reference.reference_changed.connect(self._reference_changed)

    # ------------------------------------------------------------------ intents
    def build_request(self) -> RenderRequest | None:
        """The request for the current inputs, or None after saying inline what is missing."""
        if not self.form.inputs_ready():
            return None
        fields = self.form.request_fields()
        try:
            instruct = self.attributes.instruct()
        except UserError as exc:  # the pickers prevent this; say it rather than crash
            self.form.show_message(str(exc))
            return None
        reference = self.reference.reference()
        return RenderRequest(
            instruct=instruct,
            reference=reference,
            ref_text=self.reference.transcript() if reference is not None else None,
            mode="design",
            **fields,
        )

    def _generate(self) -> None:
        request = self.build_request()
        if request is not None:
            self.render_requested.emit(request)

    def _reference_changed(self, path: Path | None) -> None:
        if path is not None:
            self.referenceSection.set_expanded(True)
        self.clip_changed()

    def apply_take(self, settings) -> None:
        """Copy a take's ``TakeSettings`` into the view (the takes panel's To editor)."""
        note = self.form.apply_settings(settings)
        self.attributes.set_target_text(settings.text)
        if not self.attributes.set_instruct(settings.instruct):
            note = (f"The take's voice design '{settings.instruct}' does not fit the pickers; "
                    "it was left as it is.")
        problem = self._apply_take_reference(settings)
        if settings.reference_path:
            self.referenceSection.set_expanded(True)
        self.form.show_outcome(problem, note)

    # ------------------------------------------------------------------ persistence
    def save_state(self, settings) -> None:
        self.attributes.save_state(settings, STATE_PREFIX)
        self.reference.save_state(settings)
        self.form.save_state(settings)
        settings.set_state(f"{STATE_PREFIX}/reference_open", self.referenceSection.is_expanded())

    def restore_state(self, settings) -> None:
        self.reference.restore_state(settings)
        self.form.restore_state(settings)
        self.attributes.restore_state(settings, STATE_PREFIX)
        self.attributes.set_target_text(self.form.text())
        opened = settings.state(f"{STATE_PREFIX}/reference_open")
        if opened in (True, "true") or self.reference.reference() is not None:
            self.referenceSection.set_expanded(True)
