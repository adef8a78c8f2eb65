"""The profile model: YAML bytes -> located, shaped, rule-checked profiles -> resolved contracts.

Import submodules directly; this package's own import is empty so the hook runtime can take
`generator.profile.vocab` and `generator.profile.versions` (stdlib only) without pydantic.
"""
