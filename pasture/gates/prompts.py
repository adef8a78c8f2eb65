"""The prompt builders, byte for byte as the gates seed quotes them. Stdlib only.

The schema-taking builders expect a pydantic model class (they read ``model_fields`` and call
``model_json_schema()``) but never import pydantic themselves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUTPUT_FILENAME = ".agentfield_output.json"

PHASE_GUIDANCE: dict[str, str] = {
    "recon": (
        "APPROACH: You are performing reconnaissance on a codebase to build an accurate structural map.\n"
        "PROCESS:\n"
        "1. Survey the codebase structure \u2014 identify key directories, entry points, and configuration\n"
        "2. Identify the technology stack \u2014 languages, frameworks, and external services\n"
        "3. Map security-relevant boundaries \u2014 auth layers, data inputs, API surfaces\n"
        "4. Only after surveying, synthesize findings into the required schema\n"
        "CONSTRAINTS:\n"
        "- Report what IS there, not what MIGHT be there\n"
        "- If uncertain about a detail, omit it rather than guess\n"
        "- Prioritize breadth over depth \u2014 cover the full surface"
    ),
    "hunt": (
        "APPROACH: You are hunting for a specific class of security vulnerability with recon context.\n"
        "PROCESS:\n"
        "1. Review the recon context to understand the codebase topology\n"
        "2. Identify files and patterns relevant to your specific vulnerability class\n"
        "3. For each candidate: read the code, trace data flow, assess exploitability\n"
        "4. Only report findings where you have concrete code evidence\n"
        "CONSTRAINTS:\n"
        "- Every finding MUST cite specific file paths and line numbers you have read\n"
        "- Do not report theoretical vulnerabilities without code evidence\n"
        "- False negatives are better than false positives\n"
        "- If a file is sanitized properly, do NOT report it"
    ),
    "prove": (
        "APPROACH: You are verifying a specific candidate vulnerability for exploitability.\n"
        "PROCESS:\n"
        "1. Read the specific code location cited in the finding\n"
        "2. Trace the data flow from source to sink\n"
        "3. Check for sanitization, validation, or other mitigations on the path\n"
        "4. If exploitable, construct a concrete exploit hypothesis\n"
        "5. Synthesize your verdict with evidence level\n"
        "CONSTRAINTS:\n"
        "- You must READ the actual code \u2014 do not rely on the finding description alone\n"
        "- INCONCLUSIVE is a valid verdict \u2014 do not force confirmation or denial\n"
        "- Cite specific lines where sanitization exists or is missing\n"
        "- If code has changed since the finding was generated, note the discrepancy"
    ),
}

DEFAULT_PHASE_CONTEXT = (
    "Build conclusions from repository evidence in iterative passes. "
    "Prefer explicit evidence over speculation, and clearly separate confirmed facts from uncertainty."
)

_CONSTRAINTS = (
    "Constraints:\n"
    "- Use evidence-first reasoning; do not speculate beyond available artifacts.\n"
    "- Keep analysis bounded to the task scope and produce only schema-conformant output.\n"
    "- Cite concrete repository evidence whenever making security-relevant claims."
)

_OUTPUT_FORMAT_HEAD = (
    "Output format:\n"
    "- Return valid JSON only (no markdown fences, no extra text).\n"
    "- Follow the provided Pydantic schema exactly."
)


def output_path(cwd: str) -> str:
    """``Path(cwd) / ".agentfield_output.json"``: pathlib join, so ``..`` is kept and ``//`` root too."""
    return str(Path(cwd) / OUTPUT_FILENAME)


def with_file_write_hint(prompt: str, cwd: str) -> str:
    return (
        f"{prompt.rstrip()}\n"
        "- If output is large or complex, use the file-write pattern and ensure final JSON is "
        f"written to {output_path(cwd)}."
    )


def with_phase_guidance(prompt: str, phase: str | None, cwd: str) -> str:
    normalized_phase = (phase or "").strip().lower()
    phase_context = PHASE_GUIDANCE.get(normalized_phase, DEFAULT_PHASE_CONTEXT)
    constraints = with_file_write_hint(_CONSTRAINTS, cwd)
    return (
        f"Context:\n- {phase_context}\n\n"
        f"{constraints}\n\n"
        f"Task:\n{prompt.rstrip()}\n\n"
        "Output:\n"
        "- Return a single JSON object matching the requested schema."
    )


def schema_guidance(schema: Any) -> str:
    """Output-format guidance from the model's described fields, in declaration order."""
    field_lines: list[str] = []
    for field_name, field in schema.model_fields.items():
        description = (field.description or "").strip()
        if description:
            field_lines.append(f"- `{field_name}`: {description}")
    if not field_lines:
        return _OUTPUT_FORMAT_HEAD
    joined = "\n".join(field_lines)
    return f"{_OUTPUT_FORMAT_HEAD}\n- Field guidance from schema descriptions:\n{joined}"


def build_schema_retry_prompt(schema: Any, error_detail: str, cwd: str) -> str:
    """The task text of a schema retry, with the model's JSON schema embedded."""
    path = output_path(cwd)
    schema_json_str = json.dumps(schema.model_json_schema(), indent=2)
    return (
        f"The JSON output at {path} failed validation.\n"
        f"Error: {error_detail}\n\n"
        "Your response must conform to this JSON schema:\n"
        f"```json\n{schema_json_str}\n```\n\n"
        f"Rewrite the COMPLETE, corrected JSON to: {path}\n"
        "The file must contain ONLY valid JSON matching the schema above. "
        "No markdown fences, no extra text, no comments."
    )


def harness_prompt(prompt: str, phase: str | None, cwd: str, schema: Any) -> str:
    """The exact composition sent to a harness: ``f"{phase_guidance}\\n\\n{schema_guidance}"``."""
    return f"{with_phase_guidance(prompt, phase, cwd)}\n\n{schema_guidance(schema)}"
