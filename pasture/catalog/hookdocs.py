"""What the readers of a bundled hook reference share (Gemini CLI's and its fork Qwen Code's): the reference and
the code file out of what an npm install holds, and the check that the reference documents exactly the events
the code's ``HookEventName`` enum names."""

from __future__ import annotations

from pathlib import Path

from pasture.catalog.packages import HostFile
from pasture.profile.catalog import CatalogError


def reference_and_code(
    found: list[HostFile], package: str, reference: str, node_modules: Path | None, code_is: str
) -> tuple[str, str]:
    """(the reference's text, the code file's text); ``code_is``: what the missing code file would define."""
    if reference not in {f.rel for f in found}:
        raise CatalogError(f"no {package}/{reference} under {node_modules} (the bundled hook reference)")
    code = [f for f in found if f.rel != reference]
    if not code:
        raise CatalogError(f"no file of {package} under {node_modules} {code_is}")
    text = next(f for f in found if f.rel == reference).path.read_text(encoding="utf-8")
    return text, code[0].path.read_text(encoding="utf-8", errors="replace")


def same_events(names: list[str], documented: list[str], reference: str) -> None:
    """The reference's event sections are the code's enum members, neither more nor fewer."""
    undocumented = [n for n in names if n not in documented]
    if undocumented:
        missing = ", ".join(undocumented)
        raise CatalogError(f"{reference} documents no section for {missing} (in the code's HookEventName)")
    extra = [s for s in documented if s not in names]
    if extra:
        raise CatalogError(f"{reference} documents {', '.join(extra)}, which the code's HookEventName lacks")
