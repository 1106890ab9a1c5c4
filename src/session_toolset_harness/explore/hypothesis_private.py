"""Every private Hypothesis name explore uses, and the Hypothesis versions they work with.

Explore needs three things public Hypothesis does not offer:

* a fixed pool of constants for Hypothesis to mix into its draws (`spec_constants`): the
  constants extractor, the pool's containers and its patch point (``hypothesis.internal``);
* the ``prng`` engine (`prng_engine`): Hypothesis's own primitive provider, the strategy
  classes it draws without Hypothesis's bookkeeping, and the build context strategies expect
  (``hypothesis.internal``, ``hypothesis.strategies._internal``, ``hypothesis.control``);
* the one-draw rule choice (`rule_choice`): a subclass of ``hypothesis.stateful.RuleStrategy``,
  an undocumented class of a public module.

They are imported here and nowhere else.  The ``hypothesis`` requirement in pyproject.toml
(``>=6.138.12,<7``) starts where all of them exist; `tools/deps_matrix.py` runs explore's tests at
that lowest version and at the newest one pip resolves.  Within that range:

* `PRNG_ENGINE_VERSIONS` is where the ``prng`` engine works (from 6.157.1 Hypothesis's
  ``ConjectureData`` grew state its strategies read that the engine does not answer): outside
  it the default engine is ``hypothesis`` (`default_engine`) and ``--engine prng`` is a
  command-line error (`prng_engine_unsupported`);
* a version whose private names moved (an import fails here) sets `UNSUPPORTED`: ``session-toolset
  explore`` then stops at once with that one line (exit 2); every other command is unaffected.
"""

from __future__ import annotations

from typing import Final

import hypothesis

LOWEST: Final = (6, 138, 12)
"""The lowest version with every name below (before it ``LazyStrategy`` lacked
``is_currently_empty``, and before 6.136 the constants extractor had no ``limit``)."""
PRNG_ENGINE_VERSIONS: Final = (LOWEST, (6, 157, 0))
"""The versions (inclusive) the ``prng`` engine was tested on and works with."""
INSTALLED: Final = hypothesis.__version__


def _parsed(version: str) -> tuple[int, ...]:
    parts: list[int] = []
    for part in version.split(".")[:3]:
        digits = "".join(c for c in part if c.isdigit())  # "0rc1" -> 0, a local part dropped
        parts.append(int(digits or 0))
    return tuple(parts)


def _text(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


UNSUPPORTED: str | None = None
"""Why explore cannot run with the installed Hypothesis, or None."""

if _parsed(INSTALLED) < LOWEST:
    UNSUPPORTED = (
        f"explore needs Hypothesis {_text(LOWEST)} or newer (installed: {INSTALLED}); "
        "pip install 'hypothesis>=6.138.12,<7'"
    )

try:
    from hypothesis.control import BuildContext
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.conjecture.providers import (
        COLLECTION_DEFAULT_MAX_SIZE,
        HypothesisProvider,
    )
    from hypothesis.internal.constants_ast import (
        Constants,
        ConstantVisitor,
        _constants_from_source,
    )
    from hypothesis.internal.floats import float_to_int
    from hypothesis.stateful import RuleStrategy
    from hypothesis.strategies._internal.collections import TupleStrategy
    from hypothesis.strategies._internal.core import BuildsStrategy
    from hypothesis.strategies._internal.lazy import unwrap_strategies
    from hypothesis.strategies._internal.strategies import OneOfStrategy, SampledFromStrategy

    _ = (providers._get_local_constants, providers.CONSTANTS_CACHE, providers.GLOBAL_CONSTANTS)
except (ImportError, AttributeError) as err:  # pragma: no cover - only on an untested version
    UNSUPPORTED = UNSUPPORTED or (
        f"explore does not support the installed Hypothesis {INSTALLED} ({err}); it was tested "
        f"from {_text(LOWEST)} on: pip install 'hypothesis>=6.138.12,<7' at a tested version"
    )


def prng_engine_supported(version: str = INSTALLED) -> bool:
    low, high = PRNG_ENGINE_VERSIONS
    return low <= _parsed(version) <= high


def prng_engine_unsupported(version: str = INSTALLED) -> str | None:
    """Why ``--engine prng`` cannot run with Hypothesis ``version``, or None."""
    if prng_engine_supported(version):
        return None
    low, high = PRNG_ENGINE_VERSIONS
    return (
        f"--engine prng works with Hypothesis {_text(low)} to {_text(high)} (installed: "
        f"{version}): use --engine hypothesis (the default with this Hypothesis), or "
        f"pip install 'hypothesis>={_text(low)},<={_text(high)}'"
    )


def default_engine(version: str = INSTALLED) -> str:
    """``prng`` where it works, else Hypothesis's own engine."""
    return "prng" if prng_engine_supported(version) else "hypothesis"


__all__ = [
    "COLLECTION_DEFAULT_MAX_SIZE",
    "INSTALLED",
    "LOWEST",
    "PRNG_ENGINE_VERSIONS",
    "UNSUPPORTED",
    "BuildContext",
    "BuildsStrategy",
    "ConstantVisitor",
    "Constants",
    "HypothesisProvider",
    "OneOfStrategy",
    "RuleStrategy",
    "SampledFromStrategy",
    "TupleStrategy",
    "_constants_from_source",
    "default_engine",
    "float_to_int",
    "prng_engine_supported",
    "prng_engine_unsupported",
    "providers",
    "unwrap_strategies",
]
