"""Pydantic models the prompt-builder goldens are pinned with.

The first group restates models of the public sec-af repository (``src/sec_af/schemas/``):
same class names, field names, order, types, defaults, descriptions and docstrings, because the
docstring and descriptions are part of the schema JSON embedded in the retry prompt. Those are the
models the Go port's goldens (``go/internal/gates/testdata/golden``) were produced with, so the
goldens built from them can be compared with the Go port's byte for byte (see
``golden/go-port-sha256.json``). The second group is ours.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

# -- restated from sec-af (facts: names, types, descriptions) ------------------------------------


class SeverityClassification(BaseModel):
    """DESIGN.md §2.4: quick severity classification gate used in scoring."""

    severity: str = Field(description='One of: "critical", "high", "medium", "low".')
    confidence: float
    rationale: str


class DuplicateCheck(BaseModel):
    """DESIGN.md §5.5: quick duplicate check gate for dedup decisions."""

    is_duplicate: bool
    duplicate_of: str | None = None
    reason: str


class StrategySelection(BaseModel):
    """DESIGN.md §5.3: strategy selection gate for HUNT routing."""

    strategies: list[str]
    rationale: str


class CWEExpansion(BaseModel):
    """AI-suggested CWE additions based on recon context."""

    additional_cwes: list[str] = Field(description="CWE IDs to add beyond baseline, e.g. ['CWE-918', 'CWE-611'].")
    rationale: str


class ComplianceSuggestion(BaseModel):
    framework: str
    control_id: str
    control_name: str


class ComplianceGate(BaseModel):
    mappings: list[ComplianceSuggestion]
    confidence: str


class ReachabilityGate(BaseModel):
    """Reachability assessment for findings without explicit reachability tags."""

    reachability: str = Field(
        description='One of: "externally_reachable", "requires_auth", "internal_only", "unreachable".'
    )
    rationale: str
    confidence: str = Field(description='One of: "high", "medium", "low".')


class VerdictDecision(BaseModel):
    """Flat schema for verdict sub-agent. Uses .ai() not .harness(). 4 fields."""

    verdict: str = Field(description='One of: "confirmed", "likely", "inconclusive", "not_exploitable"')
    evidence_level: int = Field(description="1-6 scale: 1=STATIC_MATCH to 6=FULL_EXPLOIT")
    rationale: str
    confidence: str = Field(description='One of: "high", "medium", "low"')


class VulnLocation(BaseModel):
    """Flat schema for Step 1: location scanning. 4 fields."""

    file_path: str = Field(description="Path to the file containing the potential vulnerability")
    start_line: int = Field(description="Starting line number of the vulnerable code")
    code_snippet: str = Field(description="Relevant code snippet around the vulnerability")
    pattern_type: str = Field(
        description="Type of vulnerability pattern detected (e.g. 'sql_injection', 'command_injection')"
    )


class EnrichedFinding(BaseModel):
    """Flat schema for Step 2: finding enrichment. 6 fields."""

    title: str = Field(description="Human-readable title for the finding")
    description: str = Field(description="Detailed description of the vulnerability")
    cwe_id: str = Field(description="CWE identifier (e.g. 'CWE-89')")
    severity: str = Field(description='One of: "critical", "high", "medium", "low", "info"')
    confidence: str = Field(description='One of: "high", "medium", "low"')
    data_flow_summary: str = Field(description="Natural language summary of the data flow (string, not nested)")


class ScanLocationsResult(BaseModel):
    """Container for Step 1 results."""

    locations: list[VulnLocation] = Field(default_factory=list)


SEC_AF_MODELS: tuple[type[BaseModel], ...] = (
    SeverityClassification,
    DuplicateCheck,
    StrategySelection,
    CWEExpansion,
    ComplianceGate,
    ReachabilityGate,
    VerdictDecision,
    EnrichedFinding,
    ScanLocationsResult,
)

# -- ours -----------------------------------------------------------------------------------------


class HookReview(BaseModel):
    """Review of one lifecycle hook run."""

    verdict: str = Field(description="  One of: ok, suspicious, broken.  ")  # padded on purpose: stripped
    notes: str | None = Field(default=None, description="Free text; omit when there is nothing to add.")
    touched_files: list[str] = Field(default_factory=list, description="")  # empty description: no line
    severity: int = 0
    location: VulnLocation | None = Field(default=None, description="Where the problem is, if anywhere.")


OUR_MODELS: tuple[type[BaseModel], ...] = (HookReview,)
