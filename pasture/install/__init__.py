"""``pasture install`` / ``pasture uninstall``: put a generated adapter where its host reads it.

Modules, in the order a run uses them:

* :mod:`.targets`: which file each host reads (project or user scope) and which contract to install;
* :mod:`.adapter`: the adapter's bytes, rendered from the profile exactly as generated/ holds them;
* :mod:`.launcher`: the per-user hook launcher the installed hooks record (written, self-tested);
* :mod:`.hooktable`: the pasture marker and the merge/unmerge of Claude settings and Codex hooks.json;
* :mod:`.files`: snapshots, ``*.pasture-backup`` backups, atomic replace (rolled back on failure),
  the read-only and symlink-out-of-the-project refusals, pruning empty folders;
* :mod:`.codex_server`: a small ``codex app-server`` JSON-RPC client (``hooks/list``, ``config/read``);
* :mod:`.codex_trust`: Codex trust keys, the ``[hooks.state]`` plan (ours trusted, foreign re-keyed),
  project trust;
* :mod:`.tomledit`: verified edits of config.toml through tomlkit (comments, layout and CRLF kept);
* :mod:`.actions`: install and uninstall per host; :mod:`.report`: what was done, text and JSON;
* :mod:`.commands`: the click commands.
"""
