"""The constants Hypothesis mixes into explore's draws: SPEC.md's own numbers and texts, fixed.

Hypothesis (6.155) replaces about one draw in twenty of an integer, float, string or bytes value
with a *constant*: one of its own, or a literal found in the source of any "local" module the
process has loaded (anything outside the standard library and ``site-packages``).  For explore
that made a walk depend on accidents:

* the install: an editable install (``pip install -e``) makes this package's 700-odd literals
  local, a regular one makes none of them local, so the same ``--seed`` walked differently;
* the process: pytest, a host's own modules in the working directory, or a mutant's mutated
  literal changed the pool, and so every later draw;
* any edit of a literal anywhere in the harness, the model or the implementation, even one no
  rule uses;
* and the working directory: Hypothesis caches each module's constants under ``.hypothesis/``
  there, so running ``session-toolset explore`` left a directory behind.

While explore runs (`fixed_constants`), the local pool is this fixed one instead: the limits and
edges SPEC.md and PROTOCOL.md name, where an off-by-one is most likely, and nothing else.  A walk
is then a function of the seed, the rules and this list (and Hypothesis's version, pinned).
The patch point is private Hypothesis API; `tests/explore/test_spec_constants.py` fails when a
Hypothesis upgrade moves it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants
from hypothesis.internal.floats import float_to_int

# Hypothesis's own dependency, the container its pool is made of.
from sortedcontainers import SortedSet  # type: ignore[import-untyped]


def _around(*values: int) -> set[int]:
    return {v + d for v in values for d in (-1, 0, 1)}


U64_MAX: Final = 2**64 - 1
BUDGETS: Final = (32, 40, 57, 60, 64, 128, 200, 256, 512, 8, 126, 127)
"""§1: sha- hex characters (40), segment budgets (57, 60, 64, 128), whole ToolId (200), SessionId
(256), nesting accepted inside a request and in a whole text (126, 127); §4: tag bytes (32),
tags kept (8), summary (256), alias and wire-name cuts (64, 128); PROTOCOL.md: messages (512)."""
EDGES: Final = (2**63, -(2**63), 2**64)
"""§1: the integer range of JSON input, and one past it."""
INTEGERS: Final[frozenset[int]] = frozenset(
    _around(*BUDGETS, *EDGES)
    | {U64_MAX, U64_MAX - 1}  # §2: the counter's edge
    | {10**15, 10**16, 10**17, 10**21}  # §1: where the number layouts change
    | {0x7F, 0x80, 0x85, 0x9F, 0xA0, 0xFEFF, 0xFFFF, 0x10000, 0x10FFFF}  # §1: character classes
)
"""Byte budgets and counts (each with its neighbours), the 64-bit edges, the number layouts and
the code points where SPEC.md's character classes change."""

FLOATS: Final[frozenset[float]] = frozenset(
    {0.0, 1e15, 1e16, 1e17, 1e21, 1e-5, 1e-6, 0.1, 5e-324, 1.7976931348623157e308}
    | {2.0**53, 2.0**63, 2.0**64, -(2.0**63)}
)
"""§1's double layouts (where ryu switches between fixed and exponent form, the extremes) and
the doubles next to the integer edges.  (``-0.0`` cannot be in it: Hypothesis's pool is a set,
where it equals ``0.0``; the schema strategies draw it on purpose.)"""

STRINGS: Final[frozenset[str]] = frozenset(
    {"enc-", "sha-", ":", ".", "-", "_"}  # §1: encoders and segment syntax
    | {"builtin:", "unknown:", "ext.", "mcp.", "plugin."}  # §1: constructor prefixes
    | {"base_2", "-0"}  # §4: an alias suffix; §1: the integer text that is not an integer
    | {"\x00", "\n", "\r", "\x1b", "\x7f", "\x85", "\x9f", "\ufeff"}  # §1: control classes
)
"""The prefixes and separators of §1's identities, §4's alias suffix, and one character of
each control class SessionId rejects."""

BYTES: Final[frozenset[bytes]] = frozenset(
    {b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\xf4\x90\x80\x80"}
)
"""Byte sequences that are not UTF-8 (or a BOM): §1's strict input rules."""


def pool() -> Constants:
    """The fixed pool, in the sorted containers Hypothesis's own pool uses, so the order it
    picks from is the same in every process (hash randomization does not reach it)."""
    return Constants(
        integers=SortedSet(INTEGERS),
        floats=SortedSet(FLOATS, key=float_to_int),
        bytes=SortedSet(BYTES),
        strings=SortedSet(STRINGS),
    )


@contextmanager
def fixed_constants() -> Iterator[Constants]:
    """Within the block, Hypothesis draws its local constants from `pool` (and never scans or
    caches modules); afterwards the previous behaviour is back."""
    fixed = pool()
    previous = providers._get_local_constants
    providers.CONSTANTS_CACHE.cache.clear()  # its entries hold the previous pool's choices
    providers._get_local_constants = lambda: fixed
    try:
        yield fixed
    finally:
        providers._get_local_constants = previous
        providers.CONSTANTS_CACHE.cache.clear()
