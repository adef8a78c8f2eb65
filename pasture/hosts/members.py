"""Host members that several hosts share word for word, as mixins (each host module stays the one
place that names its host; these only spare it the repeated delegation).

- :class:`PluginFileMembers`: the adapter is one generated plugin file (OpenCode, Pi): taking it out,
  and doctor's reading of it and of its launcher.
- :class:`JsonHooksDoctorMembers`: the adapter is merged into a JSON hooks file (Codex, Gemini CLI):
  doctor's reading of it and of its launcher. Claude Code and Copilot CLI read theirs with a twist of
  their own and spell the three members out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import Installation
    from pasture.install.places import Target
    from pasture.install.session import Adapter, Session


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
