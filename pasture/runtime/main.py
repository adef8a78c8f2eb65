"""`hook lifecycle ...` and `hook serve ...`: the runtime's own entry, reached without click.

The launcher `pasture install` records calls `main(sys.argv[1:])` with argv starting at `hook`;
the `pasture` console script lands here too (pasture/entry.py) before importing any CLI code.
"""

import sys

USAGE = "usage: pasture hook lifecycle ... | pasture hook serve ..."


def main(argv: list[str], process: bool = False) -> int:
    """`process=True`: this is the whole process (the console script, the launcher), so a one-event
    `hook lifecycle` may leave without the interpreter's teardown once its answer is flushed."""
    if argv[:2] == ["hook", "lifecycle"]:
        import gc

        gc.disable()  # one event, then exit: a collection over the freshly imported tables is pure cost
        from pasture.runtime.lifecycle import main as lifecycle_main

        code = lifecycle_main(argv[2:])
        if process:
            # Tearing the interpreter down (module finalization, a last collection) costs about a
            # quarter of its start-up; the answer and the journal line are already out.
            sys.stdout.flush()
            sys.stderr.flush()
            from pasture.runtime.fs import fast_exit

            fast_exit(code)
        return code
    if argv[:2] == ["hook", "serve"]:
        from pasture.runtime.serve import main as serve_main

        return serve_main(argv[2:])
    sys.stderr.write(f"pasture: {USAGE}\n")
    return 2


def is_hook(argv: list[str]) -> bool:
    return argv[:2] in (["hook", "lifecycle"], ["hook", "serve"])
