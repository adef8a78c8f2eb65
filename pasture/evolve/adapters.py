"""Capture adapters, by harness: each host's ``HOST.capture`` (defined in its host module,
``pasture/hosts/<host>.py``, on the shared base classes of :mod:`.recording`, which says how each one
records and how its host tells which events it offers)."""

from __future__ import annotations

from pasture.hosts import HOSTS
from pasture.hosts.recording import (
    CATALOG_PROBE,
    HOOK_TIMEOUT,
    PERMISSION_DECISION_EVENTS,
    CaptureAdapter,
    CommandHookCapture,
    HookRecord,
    Records,
    profile_event_names,
)

ADAPTERS: dict[str, CaptureAdapter] = {name: h.capture for name, h in HOSTS.items()}

__all__ = [
    "ADAPTERS",
    "CATALOG_PROBE",
    "HOOK_TIMEOUT",
    "PERMISSION_DECISION_EVENTS",
    "CaptureAdapter",
    "CommandHookCapture",
    "HookRecord",
    "Records",
    "profile_event_names",
]
