"""``python -m session_toolset_proofs.traceability``: see `cli`."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
