from __future__ import annotations

import sys
from pathlib import Path

# packcases.py sits beside the tests (benchmarks/bench_packs.py imports it the same way)
sys.path.insert(0, str(Path(__file__).resolve().parent))
