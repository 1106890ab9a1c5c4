"""``python -m session_toolset.adapter``: serve PROTOCOL.md v1 on stdin/stdout."""

import sys

from .server import main

sys.exit(main())
