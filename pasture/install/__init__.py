"""``pasture install`` / ``pasture uninstall``: put a generated adapter where its host reads it.

The generic run, which asks the host registry (``HOST.target``, ``pick_contract``, ``install``, ``trust``,
``uninstall``):

* :mod:`.targets`: which file each host reads (project or user scope) and which contract to install;
* :mod:`.adapter`: the adapter's bytes, rendered from the profile exactly as generated/ holds them;
* :mod:`.actions`: install and uninstall; :mod:`.report`: what was done, text and JSON;
* :mod:`.commands`: the click commands.

The host-neutral helpers a host module calls (none imports the registry):

* :mod:`.places`: ``Target``, the hosts' folders, ``version_of``, ``highest_floor``;
* :mod:`.session`: one run (``Session``): checked snapshots, atomic writes, the launcher, the command
  that repeats the run;
* :mod:`.jsonhooks`: command hooks merged into (and out of) a JSON settings file's ``hooks.<Event>`` lists,
  through :mod:`.hooktable` (the pasture marker, merge and unmerge); :mod:`.denyrules`: Claude Code's
  ``permissions.deny`` rules, its ``SettingsAmendment``;
* :mod:`.pluginfile`: one plugin file of pasture's own (OpenCode);
* :mod:`.launcher`: the per-user hook launcher the installed hooks record (written, self-tested);
* :mod:`.files`: snapshots, ``*.pasture-backup`` backups, atomic replace (rolled back on failure),
  the read-only and symlink-out-of-the-project refusals, pruning empty folders;
* what Codex's own install code (pasture/hosts/codex/: ``install.py``, ``server.py``) calls: :mod:`.codex_trust`
  (trust keys, the ``[hooks.state]`` plan: ours trusted, foreign re-keyed; project trust),
  :mod:`.tomledit` (verified edits of config.toml through tomlkit: comments, layout and CRLF kept).
"""
