"""The `pasture` console script: the hook path skips click and everything else that is slow to import."""

from __future__ import annotations

import sys


def main() -> int | None:
    from .hook.main import is_hook

    if is_hook(sys.argv[1:3]):
        from .hook.main import main as hook_main

        return hook_main(sys.argv[1:], process=True)
    from .cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
