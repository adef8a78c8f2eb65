"""The hook runtime: `pasture hook lifecycle`. Standard library only, plus the generated tables.

Every tool call of every user's agent pays for this path, so nothing here imports click, pydantic,
jinja2 or YAML, and the contract facts come from generated/python/pasture_contracts.
"""
