"""`pasture evidence`: per contract, which rows block, on what evidence, and which are demoted for lack of it.

A citation is classified by what it points at:

* ``capture``: a ``scenario.json`` under ``captures/`` that `pasture capture` wrote. It is checked:
  same harness as the contract, **the contract's own host version** (a capture of another version
  proves nothing about this one), that very event refused, a channel that matches the claim (exit 2
  for an exit-code blocking mode, JSON deny / ask for the response channels, a throw for
  throw-fail-fast), and the refusal held.
* ``documentation``: an http(s) URL (host docs or upstream source). It must be **pinned to the
  contract's version**: the version string appears in it (a release tag such as ``v2.0.20`` or
  ``rust-v0.153.0``, a versioned package path). Unversioned docs change under the claim.
* ``repository file``: any other path in this repository; it must exist.

Every citation that does not back its claim is a *problem*: `pasture evidence` exits 1, and
`pasture check` fails on it too (:func:`evidence_problems`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pasture.profile.contracts import Contract, EventRow, has_evidence
from pasture.profile.versions import HostVersion, VersionError
from pasture.profile.vocab import FailureMode

_CHANNEL_FOR = {
    FailureMode.EXIT_2_BLOCKS: "exit-2",
    FailureMode.STRICT_OUTPUT_EXIT_2_BLOCKS: "exit-2",
    FailureMode.THROW_FAIL_FAST: "throw",
}
#: a refusal carried by pasture's own adapter: a plugin's throw, or (channel "adapter") the refusal a
#: generated hook file prints where the host reads no exit code (Cline)
_ALSO = {"throw": ("throw", "adapter")}


def classify(root: Path, contract: Contract, row: EventRow, citation: str, channel: str | None) -> dict[str, Any]:
    """What a citation is, and (for a capture) whether it backs the claim; ``problem`` is None if it does."""
    out: dict[str, Any] = {"citation": citation, "kind": None, "problem": None}
    if citation.startswith(("https://", "http://")):
        out["kind"] = "documentation"
        if not pinned_to(citation, str(contract.version)):
            out["problem"] = (
                f"the URL is not pinned to {contract.version}: cite a capture of {contract.id} or a "
                f"source at a tag or path that names {contract.version}"
            )
        return out
    path = Path(root) / citation
    if path.name != "scenario.json" or "captures" not in Path(citation).parts:
        out["kind"] = "repository file"
        if not path.exists():
            out["problem"] = "the file does not exist in this repository (committed?)"
        return out
    out["kind"] = "capture"
    if not path.is_file():
        out["problem"] = "the capture file does not exist in this repository (committed?)"
        return out
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        out["problem"] = f"cannot read the capture: {exc}"
        return out
    result = doc.get("result", {})
    out.update(
        scenario=doc.get("scenario"),
        host_version=doc.get("host_version"),
        channel=doc.get("channel"),
        refused_event=doc.get("refused_event"),
        refusal_held=result.get("refusal_held"),
        effect=result.get("effect"),
    )
    problems = []
    if doc.get("harness") != contract.harness.value:
        problems.append(f"it captures {doc.get('harness')}, not {contract.harness.value}")
    try:
        captured = HostVersion.parse(str(doc.get("host_version")))
        if captured != contract.version:
            problems.append(
                f"it captures host version {doc.get('host_version')}, not {contract.version} (the "
                f"version of {contract.id})"
            )
    except VersionError:
        problems.append(f"its host version {doc.get('host_version')!r} is not a version")
    if doc.get("refused_event") != row.name:
        problems.append(f"it refuses {doc.get('refused_event')!r}, not {row.name}")
    if channel is not None and doc.get("channel") not in _ALSO.get(channel, (channel,)):
        problems.append(f"its channel is {doc.get('channel')!r}, this claim needs {channel!r}")
    if result.get("refusal_held") is not True:
        problems.append("the refusal did not hold in it")
    out["problem"] = "; ".join(problems) or None
    return out


def pinned_to(url: str, version: str) -> bool:
    """Whether ``url`` names ``version`` as a whole token (v2.0.20, rust-v0.153.0, @2.1.261, /2.0.20/)."""
    return re.search(r"(?<![0-9.])" + re.escape(version) + r"(?![0-9])", url) is not None


def evidence_problems(root: Path, contracts: list[Contract]) -> list[str]:
    """Every citation problem of every contract, as "<contract>: <event>: <citation>: <problem>".

    `pasture check` runs this on its full path (after rendering), so CI fails on a blocking claim
    that cites a missing file, a capture of another host version, or an unpinned URL."""
    return [f"{c.id}: {p}" for c in contracts for p in contract_evidence(root, c)["problems"]]


def contract_evidence(root: Path, contract: Contract) -> dict[str, Any]:
    blocking, demoted, responses = [], [], []
    for row in contract.events:
        if row.failure.blocks:
            entry: dict[str, Any] = {"event": row.name, "failure": row.failure.value}
            if has_evidence(row.evidence):
                entry["evidence"] = classify(root, contract, row, row.evidence, _CHANNEL_FOR.get(row.failure))
            elif row.failure is FailureMode.THROW_FAIL_FAST:
                entry["evidence"] = {
                    "citation": None,
                    "kind": "own plugin",
                    "problem": None,
                    "why": "pasture's own plugin throws; no host claim to cite",
                }
            blocking.append(entry)
        elif row.demoted:
            demoted.append({"event": row.name, "declared": row.declared_failure.value, "effective": row.failure.value})
        if row.response.allows_deny:
            resp: dict[str, Any] = {
                "event": row.name,
                "capability": row.response.value,
                "deny": classify(root, contract, row, row.deny_evidence, "json-deny"),
            }
            if row.response.allows_ask:
                resp["ask"] = classify(root, contract, row, row.ask_evidence, "json-ask")
            responses.append(resp)
    problems = [
        f"{e['event']}: {e['evidence']['citation']}: {e['evidence']['problem']}"
        for e in blocking
        if e.get("evidence", {}).get("problem")
    ]
    for r in responses:
        for side in ("deny", "ask"):
            if side in r and r[side]["problem"]:
                problems.append(f"{r['event']} {side}: {r[side]['citation']}: {r[side]['problem']}")
    return {
        "contract": contract.id,
        "admission": contract.admission.describe(),
        "blocking": blocking,
        "demoted": demoted,
        "responses": responses,
        "problems": problems,
    }


def _describe(ev: dict[str, Any]) -> str:
    if ev.get("kind") == "capture":
        held = "held" if ev.get("refusal_held") else "did NOT hold"
        text = (
            f"capture {ev['citation']} ({ev.get('scenario')}: {ev.get('channel')} refusal of "
            f"{ev.get('refused_event')} {held} on {ev.get('host_version')})"
        )
    elif ev.get("kind") == "own plugin":
        text = f"{ev['why']}"
    else:
        text = f"{ev.get('kind')} {ev.get('citation')}"
    if ev.get("problem"):
        text += f"  PROBLEM: {ev['problem']}"
    return text


def render_text(reports: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for rep in reports:
        lines.append(f"{rep['contract']} (admits {rep['admission']})")
        lines.append(f"  blocking ({len(rep['blocking'])}):")
        width = max((len(e["event"]) for e in rep["blocking"]), default=0)
        for e in rep["blocking"]:
            lines.append(f"    {e['event']:<{width}}  {e['failure']}: {_describe(e['evidence'])}")
        if rep["responses"]:
            lines.append(f"  response channels ({len(rep['responses'])}):")
            for r in rep["responses"]:
                lines.append(f"    {r['event']} {r['capability']}: deny on {_describe(r['deny'])}")
                if "ask" in r:
                    lines.append(
                        f"    {' ' * len(r['event'])} {' ' * len(r['capability'])}  ask on {_describe(r['ask'])}"
                    )
        if rep["demoted"]:
            lines.append(
                f"  demoted for lack of evidence ({len(rep['demoted'])}; they run {rep['demoted'][0]['effective']}):"
            )
            for d in rep["demoted"]:
                lines.append(f"    {d['event']} (declared {d['declared']})")
        else:
            lines.append("  demoted for lack of evidence: none")
        for p in rep["problems"]:
            lines.append(f"  problem: {p}")
    return "\n".join(lines) + "\n"
