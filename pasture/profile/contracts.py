"""The resolved view of a validated profile: what templates, explain and the runtime read.

Derived values (effective failure, identity policy, response capability) are computed here from
the stored declarations and never stored themselves, so they cannot disagree with them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pasture.profile.answers import AnswerForm, offered
from pasture.profile.versions import Admission, HostVersion
from pasture.profile.vocab import (
    BlockingMode,
    CoreOperation,
    EventSemantic,
    FailureMode,
    HandlerOrder,
    Harness,
    HookSurface,
    IdentityKind,
    IdentityPolicy,
    MutationMode,
    ReconciliationMode,
    ResponseCapability,
    RuntimeClass,
    StopLoopPolicy,
)


def has_evidence(source: str | None) -> bool:
    """Whitespace alone is not a citation."""
    return bool(source and source.strip())


def effective_failure(declared: FailureMode, evidence: str | None) -> FailureMode:
    """The failure-evidence rule: an uncited exit-code blocking claim runs as report-and-continue."""
    if declared.blocks_by_exit_code and not has_evidence(evidence):
        return FailureMode.REPORT_AND_CONTINUE
    return declared


@dataclass(frozen=True)
class IdentityField:
    kind: IdentityKind
    field: str
    required: bool


@dataclass(frozen=True)
class EventRow:
    name: str
    semantic: EventSemantic
    surface: HookSurface
    blocking: BlockingMode
    mutation: MutationMode
    order: HandlerOrder
    reconciliation: ReconciliationMode
    declared_failure: FailureMode
    evidence: str  # resolved citation ("" when none)
    identities: tuple[IdentityField, ...]
    unresolved: tuple[IdentityKind, ...]
    stop_loop: StopLoopPolicy
    pre_action: bool
    deny_evidence: str = ""
    ask_evidence: str = ""
    matcher: str | None = None
    timeout: int | None = None
    note: str = ""
    line: int = 0  # where the row starts in its profile, for explanations
    # the capability matrix (profile/answers.py): every answer form the host's schema allows on this
    # row, each with the captures of this version that tried it; only honoured ones are offered
    answers: tuple[AnswerForm, ...] = ()

    @property
    def failure(self) -> FailureMode:
        """The EFFECTIVE failure mode: every behaviour obeys this one."""
        return effective_failure(self.declared_failure, self.evidence)

    @property
    def demoted(self) -> bool:
        return self.failure is not self.declared_failure

    @property
    def offered_answers(self) -> tuple[tuple[str, str], ...]:
        """(capability, wire form) of every answer a capture of this version shows honoured."""
        return offered(self.answers)

    @property
    def identity_policy(self) -> IdentityPolicy:
        return IdentityPolicy.DECLARED if self.identities else IdentityPolicy.NONE

    @property
    def response(self) -> ResponseCapability:
        if not (self.pre_action and self.semantic is EventSemantic.GATE_CONSULTATION):
            return ResponseCapability.NONE
        if not has_evidence(self.deny_evidence):
            return ResponseCapability.NONE
        if has_evidence(self.ask_evidence):
            return ResponseCapability.DENY_ASK
        return ResponseCapability.DENY

    def identity(self, native_field: str) -> IdentityField | None:
        """Exact, case-sensitive lookup: correlation fields are never normalised."""
        for ident in self.identities:
            if ident.field == native_field:
                return ident
        return None


@dataclass(frozen=True)
class Binding:
    """One operation, effect or capability lowering; exactly the fields of its class are set."""

    key: str
    klass: RuntimeClass
    call: str = ""
    arguments: tuple[str, ...] = ()
    result: str = ""
    context: str = ""
    mediator: str = ""
    instruction: str = ""
    reason: str = ""


@dataclass(frozen=True)
class CapabilityBinding:
    binding: Binding
    requested: str  # MAJOR.MINOR.PATCH
    supports_from: str
    supports_through: str


@dataclass(frozen=True)
class RuntimeContract:
    operations: tuple[Binding, ...]  # canonical CoreOperation order
    effects: tuple[Binding, ...] = ()
    capabilities: tuple[CapabilityBinding, ...] = ()

    def operation(self, op: CoreOperation) -> Binding:
        for b in self.operations:
            if b.key == op.value:
                return b
        raise KeyError(op)


@dataclass(frozen=True)
class Contract:
    id: str
    harness: Harness
    version: HostVersion
    admission: Admission
    events: tuple[EventRow, ...]
    runtime: RuntimeContract
    folder: str  # e.g. "profiles/claude-code@2.1.261"
    lifecycle_file: str
    runtime_file: str
    _index: dict[str, EventRow] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._index.update({row.name: row for row in self.events})

    def row(self, name: str) -> EventRow | None:
        return self._index.get(name)
