"""A minimal client for ``codex app-server`` (JSON-RPC, one JSON object per line, over stdio).

Used for what only Codex knows: the key and current hash of each hook it discovers (``hooks/list``)
and why a project's ``.codex/`` layer is not loaded (``config/read`` with ``includeLayers``).
Codex computes hook hashes itself (``version_for_toml``); we never compute one.

The server is started with ``--disable plugins`` so it does not try to sync Codex's curated
plugins from the network at startup (if that flag is refused by an older Codex, it is started
without it). It is killed when the client closes.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Mapping

from pasture import PastureError

CLIENT_NAME = "pasture-install"


class CodexServerError(PastureError, RuntimeError):
    """codex app-server could not be started or did not answer as expected."""


def find_codex(explicit: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Path | None:
    """The codex binary: ``explicit`` if given (must exist), else ``codex`` on the env's PATH."""
    if explicit:
        path = Path(explicit)
        return path if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which("codex", path=env.get("PATH", os.defpath))
    return Path(found) if found else None


class AppServer:
    def __init__(self, binary: Path, *, cwd: Path, env: Mapping[str, str], timeout: float = 60.0) -> None:
        self.binary, self.cwd, self.env, self.timeout = binary, cwd, dict(env), timeout
        self._proc: subprocess.Popen[str] | None = None
        self._lines: "queue.Queue[str | None]" = queue.Queue()
        self._stderr: list[str] = []
        self._err_thread: threading.Thread | None = None
        self._next_id = 1

    def __enter__(self) -> "AppServer":
        try:
            self._start(["--disable", "plugins"])
            self._initialize()
        except CodexServerError as first:
            self._settle()
            tail = self.stderr_tail()
            if "--disable" not in tail and "unexpected argument" not in tail:
                self.close()
                raise first
            self.close()
            self._start([])
            self._initialize()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self, extra: list[str]) -> None:
        self._lines = queue.Queue()
        self._stderr = []
        try:
            self._proc = subprocess.Popen(
                [str(self.binary), "app-server", *extra],
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                start_new_session=True,
            )
        except OSError as exc:
            raise CodexServerError(f"cannot start {self.binary} app-server: {exc}") from None
        proc = self._proc

        def pump_out() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                self._lines.put(line)
            self._lines.put(None)

        def pump_err() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                if len(self._stderr) < 2000:
                    self._stderr.append(line)

        threading.Thread(target=pump_out, daemon=True).start()
        self._err_thread = threading.Thread(target=pump_err, daemon=True)
        self._err_thread.start()

    def _settle(self) -> None:
        """After a failure: let an exiting server finish writing stderr before we read it."""
        if self._proc is not None:
            try:
                self._proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                return
        if self._err_thread is not None:
            self._err_thread.join(timeout=2)

    def stderr_tail(self, limit: int = 2000) -> str:
        return "".join(self._stderr)[-limit:]

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(message) + "\n")
            self._proc.stdin.flush()
        except OSError as exc:
            raise CodexServerError(
                f"codex app-server stopped reading its input: {exc}; stderr: {self.stderr_tail()}"
            ) from None

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        request_id = self._next_id
        self._next_id += 1
        self._send({"id": request_id, "method": method, "params": params or {}})
        deadline = time.monotonic() + self.timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                self._settle()
                code = self._proc.poll() if self._proc else None
                raise CodexServerError(
                    f"codex app-server exited (code {code}) before answering {method}; stderr: {self.stderr_tail()}"
                )
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(message, dict) or message.get("id") != request_id:
                continue  # a notification, or a server request we do not serve
            if "error" in message:
                raise CodexServerError(f"codex app-server answered {method} with an error: {message['error']}")
            if "result" in message:
                return message["result"]
        raise CodexServerError(
            f"codex app-server gave no answer to {method} within {self.timeout:.0f}s; stderr: {self.stderr_tail()}"
        )

    def _initialize(self) -> None:
        self.request(
            "initialize",
            {"clientInfo": {"name": CLIENT_NAME, "version": "0"}, "capabilities": {"experimentalApi": True}},
        )
        self._send({"method": "initialized"})

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for stream in (proc.stdin,):
            try:
                stream and stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, 9)
            except (ProcessLookupError, PermissionError):
                proc.kill()
            proc.wait()

    # --- the two questions we ask --------------------------------------------------------------

    def list_hooks(self, cwd: Path) -> dict[str, Any]:
        """``hooks/list`` for one cwd: ``{"hooks": [...], "warnings": [...], "errors": [...]}``."""
        result = self.request("hooks/list", {"cwds": [str(cwd)]})
        entries = result.get("data") if isinstance(result, dict) else None
        if not isinstance(entries, list) or not entries:
            raise CodexServerError(f"unexpected hooks/list answer: {json.dumps(result)[:500]}")
        entry = entries[0]
        return {
            "hooks": list(entry.get("hooks") or []),
            "warnings": list(entry.get("warnings") or []),
            "errors": list(entry.get("errors") or []),
        }

    def disabled_layers(self, cwd: Path) -> list[str]:
        """Why config layers seen from ``cwd`` are disabled (e.g. an untrusted project), in Codex's words."""
        try:
            result = self.request("config/read", {"cwd": str(cwd), "includeLayers": True})
        except CodexServerError:
            return []
        return [
            str(layer["disabledReason"])
            for layer in (result or {}).get("layers") or []
            if isinstance(layer, dict) and layer.get("disabledReason")
        ]
