"""An "echo-expected" fake: plays back the expectations of one recorded vector file.

``hello`` rewinds to the start of the vector (every vector begins with it, and the runner's sync
probe is a hello), then each request gets the next step's ``expect`` as its reply, with a message
added to rejections. It lets the real walkthrough vectors run end to end before any real adapter
exists, and proves the runner accepts replies exactly equal to the expectations.
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as handle:
        steps = json.load(handle)["steps"]
    position = 0
    for raw in sys.stdin:
        try:
            request = json.loads(raw)
        except ValueError:
            request = None
        if isinstance(request, dict) and request.get("op") == "hello":
            position = 0
        if position < len(steps):
            reply = dict(steps[position]["expect"])
            position += 1
        else:
            reply = {"ok": False, "error": "Protocol", "message": "past the end of the recording"}
        if reply.get("ok") is False:
            reply.setdefault("message", "played back")
        if reply.get("ok") is True and isinstance(request, dict) and request.get("op") == "hello":
            reply.setdefault("implementation", "playback 0")
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
