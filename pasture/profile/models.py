"""Pydantic models of the profile files: the shape of what a maintainer writes.

Closed vocabularies are enums, unknown fields are rejected, and nothing derived is stored.
Cross-field rules live in `rules.py`; the resolved, derived view lives in `contracts.py`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from pasture.profile.vocab import (
    CONTRACT_ID_EXAMPLE,
    BlockingMode,
    CoreOperation,
    EventSemantic,
    FailureMode,
    HandlerOrder,
    HookSurface,
    IdentityKind,
    MutationMode,
    ReconciliationMode,
    RuntimeClass,
    StopLoopPolicy,
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False)


class Identity(_Strict):
    """One native correlation field the adapter forwards byte for byte."""

    kind: IdentityKind
    field: StrictStr = Field(description="exact native field name in the host's payload")
    required: StrictBool


class ResponseEvidence(_Strict):
    """Where the host documents the response channel of a pre-action gate."""

    deny: StrictStr | None = Field(None, description="citation for the deny channel")
    ask: StrictStr | None = Field(None, description="citation for the ask channel (needs deny)")


class LifecycleRow(_Strict):
    name: StrictStr = Field(description="exact native event name")
    semantic: EventSemantic
    surface: HookSurface
    blocking: BlockingMode
    mutation: MutationMode
    order: HandlerOrder
    reconciliation: ReconciliationMode
    failure: FailureMode = Field(description="the DECLARED failure mode, before the failure-evidence rule")
    evidence: StrictStr | None = Field(None, description="docs URL or repository path for a blocking claim")
    identities: list[Identity]
    unresolved: list[IdentityKind] = Field(default_factory=list)
    stop_loop: StopLoopPolicy
    pre_action: StrictBool
    response: ResponseEvidence | None = None
    matcher: StrictStr | None = Field(
        None, description="matcher the generated command hook registers with, on events the host filters"
    )
    timeout: StrictInt | None = Field(None, description="hook timeout in seconds where the host caps it")
    note: StrictStr | None = None


class AdmissionSpec(_Strict):
    """Exactly one shape: `exact`, `floor`, or `from` + `through`."""

    exact: StrictStr | None = None
    floor: StrictStr | None = None
    from_: StrictStr | None = Field(None, alias="from")
    through: StrictStr | None = None
    include_prereleases: StrictBool = False

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ExcludedEvent(_Strict):
    """An event of the host's own catalog that the profile deliberately has no row for."""

    name: StrictStr = Field(description="exact native event name, as the host catalog spells it")
    reason: StrictStr = Field(description="why no row: what the event is and why pasture does not hook it")


class LifecycleFile(_Strict):
    contract: StrictStr = Field(description=f"<harness>@<version>, e.g. {CONTRACT_ID_EXAMPLE}")
    admission: AdmissionSpec
    sources: dict[StrictStr, StrictStr] = Field(default_factory=dict)
    catalog_unavailable: StrictStr | None = Field(
        None, description="why no host catalog can be extracted for this version (no package of it is published)"
    )
    events: list[LifecycleRow]
    excluded: list[ExcludedEvent] = Field(
        default_factory=list, description="host catalog events without a row, each with its reason"
    )


class OperationBinding(_Strict):
    klass: RuntimeClass = Field(alias="class")
    call: StrictStr | None = None
    arguments: list[StrictStr] | None = None
    result: StrictStr | None = None
    context: StrictStr | None = None
    mediator: StrictStr | None = None
    instruction: StrictStr | None = None
    reason: StrictStr | None = None

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class EffectBinding(OperationBinding):
    id: StrictStr


class CapabilityRange(_Strict):
    from_: StrictStr = Field(alias="from")
    through: StrictStr

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class CapabilityRequest(_Strict):
    id: StrictStr
    version: StrictStr = Field(description="the capability contract version requested, MAJOR.MINOR.PATCH")


class CapabilityContribution(OperationBinding):
    id: StrictStr
    supports: CapabilityRange


class RuntimeFile(_Strict):
    contract: StrictStr
    operations: dict[CoreOperation, OperationBinding]
    effects: list[EffectBinding] = Field(default_factory=list)
    requested_capabilities: list[CapabilityRequest] = Field(default_factory=list)
    capabilities: list[CapabilityContribution] = Field(default_factory=list)
