"""The reference implementation behind PROTOCOL.md v1 (stdin/stdout), a thin translation layer.

Run it as ``python -m session_toolset.adapter`` or ``session-toolset adapter``.
"""

from .server import handle_line, main, serve
from .world import World

__all__ = ["World", "handle_line", "main", "serve"]
