"""The profile model: YAML bytes -> located, shaped, rule-checked profiles -> resolved contracts.

Import submodules directly; this package's own import is empty so the hook runtime can take
`pasture.profile.vocab` and `pasture.profile.versions` (stdlib only) without pydantic.
"""
