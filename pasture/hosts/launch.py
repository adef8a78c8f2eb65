"""What every host launcher shares: the run-folder layout, the run context, the launcher API."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

__all__ = ["HostLauncher", "RunContext", "RunLayout", "FAKE_API_KEY"]

#: The only credential any host ever gets: a fake key for the fake server.
FAKE_API_KEY = "sk-fake-pasture-harness"


@dataclass(frozen=True)
class RunLayout:
    """The folders of one run. Everything a host may write lives under ``root``."""

    root: Path
    project: Path
    home: Path
    tmp: Path
    xdg_config: Path
    xdg_data: Path
    xdg_state: Path
    xdg_cache: Path
    xdg_runtime: Path

    @classmethod
    def at(cls, root: str | os.PathLike[str]) -> "RunLayout":
        root = Path(root).resolve()
        home = root / "home"
        return cls(
            root=root,
            project=root / "project",
            home=home,
            tmp=root / "tmp",
            xdg_config=home / ".config",
            xdg_data=home / ".local" / "share",
            xdg_state=home / ".local" / "state",
            xdg_cache=home / ".cache",
            xdg_runtime=root / "xdg-runtime",
        )

    def create(self, home_folders: tuple[str, ...] = ()) -> "RunLayout":
        """Make every folder of the run, and ``home_folders`` (a launcher's) below its home."""
        for f in fields(self):
            Path(getattr(self, f.name)).mkdir(parents=True, exist_ok=True)
        for name in home_folders:
            (self.home / name).mkdir(parents=True, exist_ok=True)
        os.chmod(self.xdg_runtime, 0o700)
        return self

    def to_dict(self) -> dict[str, str]:
        return {f.name: str(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, str]) -> "RunLayout":
        return cls(**{f.name: Path(data[f.name]) for f in fields(cls)})

    def isolated_env(self) -> dict[str, str]:
        """HOME, TMPDIR and XDG_* pointing into the run folder."""
        return {
            "HOME": str(self.home),
            "TMPDIR": str(self.tmp),
            "TMP": str(self.tmp),
            "TEMP": str(self.tmp),
            "XDG_CONFIG_HOME": str(self.xdg_config),
            "XDG_DATA_HOME": str(self.xdg_data),
            "XDG_STATE_HOME": str(self.xdg_state),
            "XDG_CACHE_HOME": str(self.xdg_cache),
            "XDG_RUNTIME_DIR": str(self.xdg_runtime),
        }


@dataclass
class RunContext:
    """Everything a launcher may use. Built inside the run's network namespace."""

    layout: RunLayout
    binary: Path
    base_url: str  # http://127.0.0.1:PORT (no /v1)
    prompt: str
    options: dict[str, Any]
    env: dict[str, str] = field(default_factory=dict)  # the host's full environment, once built

    @property
    def base_url_v1(self) -> str:
        return self.base_url + "/v1"


class HostLauncher:
    """How to run one host headless. One subclass per host, each in its own module.

    * :meth:`env`: variables the host needs on top of the isolated base environment.
    * :meth:`prepare`: write the config files that need the fake server's address (called inside the
      namespace, after the fake server listens, before the host starts).
    * :meth:`argv`: the command line (without the ``timeout`` wrapper).
    """

    host: str = ""
    wire_protocol: str = ""
    default_options: dict[str, Any] = {}
    #: the host's own credential variables, never handed on from the caller (pasture.hostenv's CLEARED_ENV)
    cleared_env: tuple[str, ...] = ()
    #: the folders below the run's home where the host keeps its settings: a run creates them, so a test or
    #: an install can write there before the host starts
    home_folders: tuple[str, ...] = ()

    def options(self, overrides: dict[str, Any] | None) -> dict[str, Any]:
        unknown = set(overrides or {}) - set(self.default_options)
        if unknown:
            raise ValueError(f"unknown {self.host} option(s) {sorted(unknown)}; known: {sorted(self.default_options)}")
        return {**json.loads(json.dumps(self.default_options)), **(overrides or {})}

    def env(self, ctx: RunContext) -> dict[str, str]:
        return {}

    def prepare(self, ctx: RunContext) -> None:
        return None

    def argv(self, ctx: RunContext) -> list[str]:
        raise NotImplementedError
