"""The JSON-text request lines (`strategies.json_text_lines`): each part means what it claims
(a refused token is refused in every position, an escaped spelling decodes to its text, a
string's text is valid JSON), and the world and the reference agree on whole lines."""

from __future__ import annotations

import json

import pytest
from session_toolset_model.world import World

from session_toolset.adapter import World as AdapterWorld
from session_toolset.adapter import handle_line
from session_toolset_harness.explore import draw as st
from session_toolset_harness.explore import strategies
from session_toolset_harness.explore.draw import samples

pytestmark = pytest.mark.spec("1.4")

QUICK = 120


def verdict(line: str) -> object:
    reply = World().handle_line(line.encode("utf-8"))
    return True if reply["ok"] else reply["error"]


def digest(*schemas: str) -> str:
    """A digest request line whose ``schema`` key holds each text in turn (the last is kept)."""
    return '{"op":"digest",' + ",".join(f'"schema":{s}' for s in schemas) + "}"


def test_a_refused_token_refuses_the_line_wherever_it_sits() -> None:
    pairs = samples(st.tuples(strategies.bad_json_tokens(), strategies.json_string_texts()), QUICK)
    refused = 0
    for bad, good in pairs:
        assert verdict(digest(good)) is True
        # A "bad" string piece can complete into a valid one (``\u12`` then ``00``: ``\u1200``);
        # the world judges every line explore sends, so that only makes a token here not refused.
        if verdict(digest(bad)) != "Protocol":
            continue
        refused += 1
        for line in (
            digest(bad, good),
            digest(f"[{good},{bad}]"),
            digest(f'{{"a":{bad}}}'),
        ):
            assert verdict(line) == "Protocol", line
    assert refused > QUICK // 2


def _with_spelling(text: str) -> st.SearchStrategy[tuple[str, str]]:
    return strategies.escaped(text).map(lambda spelled: (text, spelled))


SPELLED: list[tuple[str, str]] = samples(
    st.one_of(strategies.raw_tool_ids(), strategies.session_texts()).flatmap(_with_spelling), QUICK
)


@pytest.mark.parametrize("pair", SPELLED)
def test_an_escaped_spelling_decodes_to_its_text(pair: tuple[str, str]) -> None:
    text, spelled = pair
    assert json.loads(spelled) == text


def test_a_string_text_is_valid_json_and_accepted() -> None:
    for text in samples(strategies.json_string_texts(8), QUICK):
        json.loads(text)
        assert verdict(digest(text)) is True


def test_the_reference_answers_every_generated_line_as_the_world_does() -> None:
    for line in samples(strategies.json_text_lines(), 200):
        expected = World().handle_line(line)
        actual = handle_line(AdapterWorld(), line)
        assert {key: actual.get(key) for key in expected} == expected, line
