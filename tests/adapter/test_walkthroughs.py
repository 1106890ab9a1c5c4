"""Both recorded walkthroughs, reply for reply, in process and through a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from adapter.adapter_support import (
    Json,
    load_walkthrough,
    mismatch,
    reply_to,
    walkthrough_names,
)
from session_toolset.adapter import World

pytestmark = pytest.mark.spec("2", "3", "4", "5")

NAMES = walkthrough_names()


def test_both_walkthroughs_are_packaged() -> None:
    assert NAMES == ["original-walkthrough-1.json", "original-walkthrough-2.json"]
    sizes = [len(load_walkthrough(n)["steps"]) for n in NAMES]
    assert sizes == [152, 72]


def _check_replies(steps: list[Json], replies: list[Json]) -> None:
    assert len(replies) == len(steps)
    for index, (step, reply) in enumerate(zip(steps, replies, strict=True)):
        problem = mismatch(step["expect"], reply)
        assert problem is None, f"step {index} {json.dumps(step['send'])[:200]}: {problem}"
        if reply.get("ok") is False:
            assert isinstance(reply.get("error"), str)
            assert isinstance(reply.get("message"), str)
            if str(reply["error"]).startswith("ToolAuthorizationError."):
                assert len(reply["message"].encode("utf-8")) < 512


@pytest.mark.parametrize("name", NAMES)
def test_walkthrough_in_process(name: str) -> None:
    vector = load_walkthrough(name)
    assert vector["protocol"] == 1
    world = World()
    replies = [reply_to(world, json.dumps(s["send"]).encode("utf-8")) for s in vector["steps"]]
    _check_replies(vector["steps"], replies)


@pytest.mark.parametrize("name", NAMES)
def test_walkthrough_through_a_subprocess(name: str) -> None:
    vector = load_walkthrough(name)
    lines = b"".join(json.dumps(s["send"]).encode("utf-8") + b"\n" for s in vector["steps"])
    result = subprocess.run(
        [sys.executable, "-m", "session_toolset.adapter"],
        input=lines,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    out = result.stdout.decode("utf-8").split("\n")
    assert out[-1] == ""  # every reply ends with a newline, and nothing follows the last one
    replies = [json.loads(line) for line in out[:-1]]
    _check_replies(vector["steps"], replies)


def test_both_walkthroughs_in_one_process_reset_between_them() -> None:
    steps = [s for n in NAMES for s in load_walkthrough(n)["steps"]]
    world = World()
    replies = [reply_to(world, json.dumps(s["send"]).encode("utf-8")) for s in steps]
    _check_replies(steps, replies)


def test_matcher_is_strict_about_types_and_lengths() -> None:
    assert mismatch({"a": 1}, {"a": 1, "b": 2}) is None
    assert mismatch({"a": 1}, {"a": 1.0}) is not None
    assert mismatch({"a": 1}, {"a": True}) is not None
    assert mismatch({"a": True}, {"a": 1}) is not None
    assert mismatch([1, 2], [1, 2, 3]) is not None
    assert mismatch([{"x": 1}], [{"x": 1, "y": 2}]) is None
    assert mismatch([1, 2], [2, 1]) is not None
    assert mismatch({"a": None}, {}) is not None
    assert mismatch({"a": None}, {"a": None}) is None
    assert mismatch({"a": {"b": "c"}}, {"a": {"b": "d"}}) == "$.a.b: expected 'c', got 'd'"
