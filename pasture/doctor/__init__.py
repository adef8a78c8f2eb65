"""``pasture doctor``: one command that answers "is enforcement really on here?".

Modules, in the order a run uses them:

* :mod:`.run`: the run (project root, hosts, runtime view) and its options;
* :mod:`.hosts`: per host and scope, the installed adapter (as generated?), the launcher it records
  (runs?), the host version (admitted?), Claude's start folder, Codex's shell;
* :mod:`.codex`: Codex trust of every one of our hooks, asked of ``codex app-server``;
* :mod:`.runtime_view`: the runtime's own view of the project (root, policy layers and trust,
  journal, gates), the one place that names the runtime's modules;
* :mod:`.findings`: findings (ok / warn / off, each with its fix), the report, exit codes;
* :mod:`.command`: the click command.
"""
