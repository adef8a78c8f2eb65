"""When a host ships a new version: detect it, capture real payloads as evidence, diff, regenerate.

* :mod:`.status`: ``pasture host status`` (installed host CLIs, versions, the contract each resolves to).
* :mod:`.capture` (+ :mod:`.scenarios`, :mod:`.adapters`, :mod:`.scrub`): ``pasture capture``.
* :mod:`.profile_new` (+ :mod:`.captured`, :mod:`.yamlout`): ``pasture profile new``.
* :mod:`.evidence`: ``pasture evidence``.
* :mod:`.diff`: ``pasture diff``.

The click commands live in :mod:`pasture.cli.host`.
"""
