"""`python -m pasture`: the same entry point as the `pasture` console script."""

import sys

from pasture.entry import main

sys.exit(main())
