"""The constants Hypothesis mixes into explore's draws: a fixed pool, the same in every process.

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

While explore runs (`fixed_constants`), the local pool is `pool` instead, made of two parts:

* the literals of the modules that say what explore sends (`GENERATORS`: the pools, the
  strategies, the rules), read from their source text by Hypothesis's own extractor, whether or
  not the package is installed editable: their JSON fragments, escapes, spellings and edges
  are what made the pool useful, and they are generation's own vocabulary;
* the limits and edges SPEC.md and PROTOCOL.md name (`INTEGERS`, `FLOATS`, `STRINGS`,
  `BYTES`), where an off-by-one is most likely.

Both are filtered the way Hypothesis filters what it extracts (no integer within 100 of zero:
those are the index draws of every ``sampled_from`` and rule choice, which a constant would
skew; no empty or whitespace-only string, none longer than 20 characters).  A walk is then a
function of the seed, the generation modules and this list (and Hypothesis's version): not of
the implementation, the model, the tests or the host.  The patch point is private Hypothesis API
(`hypothesis_private`); `tests/explore/test_spec_constants.py` fails when a Hypothesis version
moves it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any, Final

from .hypothesis_private import Constants, _constants_from_source, float_to_int, providers

SortedSet: Any = type(providers.GLOBAL_CONSTANTS.integers)
"""The sorted container Hypothesis's own pool is made of (sortedcontainers' ``SortedSet``), taken
from that pool: a dependency of Hypothesis's, not one of this package's (`tests/test_packaging.py`
requires every import here to be a declared dependency)."""


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


GENERATORS: Final = ("pools", "strategies", "protocol_rules", "steering", "machine")
"""The explore modules whose literals join the pool: the ones that build requests."""


def generator_literals() -> Constants:
    """The literals of `GENERATORS`, from their source text (not from ``sys.modules``, not
    cached anywhere), by Hypothesis's own extractor.

    The source comes from each module's loader, so an install that is not a directory of files
    (a zip on ``sys.path``, a zipapp) reads it too; and without Hypothesis's cap of 1024
    constants per module, past which it keeps *none* of that module's literals: a growing
    generation module would otherwise drop out of the pool silently."""
    found = Constants()
    for name in GENERATORS:
        qualified = f"{__package__}.{name}"
        # zipimport's loader has get_source but is no registered InspectLoader: ask it directly
        get_source = getattr(importlib.import_module(qualified).__loader__, "get_source", None)
        source = get_source(qualified) if callable(get_source) else None
        if source is None:
            raise RuntimeError(
                f"explore needs the source of {qualified} (its literals seed the draws): "
                "install session-toolset with its .py files"
            )
        found |= _constants_from_source(source, limit=False)
    return found


def _kept(values: Iterable[object]) -> list[object]:
    """Hypothesis's own filter on extracted constants (see the module docstring)."""
    kept: list[object] = []
    for v in values:
        if isinstance(v, bool) or (isinstance(v, int) and -100 < v < 100):
            continue
        if isinstance(v, str) and (v == "" or v.isspace() or len(v) > 20):
            continue
        kept.append(v)
    return kept


@cache
def pool() -> Constants:
    """The fixed pool, in the sorted containers Hypothesis's own pool uses, so the order it
    picks from is the same in every process (hash randomization does not reach it)."""
    found = generator_literals()
    return Constants(
        integers=SortedSet(_kept([*INTEGERS, *found.integers])),
        floats=SortedSet(_kept([*FLOATS, *found.floats]), key=float_to_int),
        bytes=SortedSet(_kept([*BYTES, *found.bytes])),
        strings=SortedSet(_kept([*STRINGS, *found.strings])),
    )


@contextmanager
def fixed_constants() -> Iterator[Constants]:
    """Within the block, Hypothesis draws its local constants from `pool` (and never scans
    ``sys.modules`` or writes a cache); afterwards the previous behaviour is back."""
    fixed = pool()
    previous = providers._get_local_constants
    providers.CONSTANTS_CACHE.cache.clear()  # its entries hold the previous pool's choices
    providers._get_local_constants = lambda: fixed
    try:
        yield fixed
    finally:
        providers._get_local_constants = previous
        providers.CONSTANTS_CACHE.cache.clear()
