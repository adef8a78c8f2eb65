"""`python -m generator.cli`: the click command line itself (the console script adds the hook fast path)."""

from generator.cli import main

main(prog_name="pasture")
