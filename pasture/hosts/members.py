"""Host members that several hosts share word for word, as mixins (each host module stays the one
place that names its host; these only spare it the repeated delegation).

- :class:`PluginFileMembers`: the adapter is one generated plugin file (OpenCode, Pi): taking it out,
  and doctor's reading of it and of its launcher.
- :class:`CommandJsonAnswerMembers`: the host answers as Claude Code's command hooks do and its adapter
  hands the hook its stdin as the host sent it (Claude Code, Codex, Qwen Code): the answer candidates and
  the captured payload.
- :class:`JsonHooksDoctorMembers`: the adapter is merged into a JSON hooks file (Codex, Gemini CLI):
  doctor's reading of it and of its launcher. Claude Code and Copilot CLI read theirs with a twist of
  their own and spell the three members out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.install.places import Installation, Target
    from pasture.install.session import Adapter, Session


class CommandJsonAnswerMembers:
    """answer_candidates and lifecycle_payload for a host that answers in Claude Code's command-JSON forms."""

    def answer_candidates(self, row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
        from pasture.profile.answers import command_candidates

        return command_candidates(row, output, inputs)

    def lifecycle_payload(self, event: str, payload: Any, bus: bool) -> Any:
        return payload  # the command hook's stdin, as the host sent it


class PluginFileMembers:
    """uninstall, read_installation, check_adapter, check_launcher for a plugin-file host."""

    name: str
    display_name: str

    def uninstall(self, session: Session) -> None:
        from pasture.install import pluginfile

        pluginfile.uninstall(session)

    # doctor
    def read_installation(self, target: Target, text: str) -> Installation | Finding | None:
        from pasture.doctor.installed import read_plugin_file

        return read_plugin_file(self.name, target, text)

    def check_adapter(self, inst: Installation, adapter: Adapter) -> list[Finding]:
        from pasture.doctor.installed import check_plugin_file

        return check_plugin_file(inst, adapter)

    def check_launcher(self, inst: Installation, env: Mapping[str, str]) -> list[Finding]:
        from pasture.doctor.installed import check_plugin_launcher

        return check_plugin_launcher(inst, env, self.display_name)


class JsonHooksDoctorMembers:
    """read_installation, check_adapter, check_launcher for a host whose hooks live in a JSON file."""

    name: str

    def read_installation(self, target: Target, text: str) -> Installation | Finding | None:
        from pasture.doctor.installed import read_json_hooks

        return read_json_hooks(self.name, target, text)

    def check_adapter(self, inst: Installation, adapter: Adapter) -> list[Finding]:
        from pasture.doctor.installed import check_json_hooks

        return check_json_hooks(inst, adapter)

    def check_launcher(self, inst: Installation, env: Mapping[str, str]) -> list[Finding]:
        from pasture.doctor.installed import check_json_launcher

        return check_json_launcher(inst, env)
