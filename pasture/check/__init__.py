"""Comparing rendered artifacts with `generated/`: drift and the all-or-nothing write (`drift`), and
the stdlib-only fast path of an unchanged `pasture check` (`quick`)."""
