"""`python -m pasture.cli`: the click command line itself (the console script adds the hook fast path)."""

from pasture.cli import main

main(prog_name="pasture")
