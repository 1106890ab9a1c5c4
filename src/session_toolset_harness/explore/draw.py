"""Seeded generators and the rule runner explore draws its examples with.

A strategy draws one value from a ``random.Random``; the names follow Hypothesis's.  A machine's
methods marked `rule` (or `initialize`) draw their arguments, Bundles hold values earlier rules
returned.  An example is a deterministic function of the seed and its index; per example a
random share of the rules is switched off (swarm testing), and a rule whose draw cannot be made
is skipped."""

from __future__ import annotations

import math
import random
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..interrupt import Interrupted

T = TypeVar("T")
U = TypeVar("U")
Rng = random.Random


class Discarded(Exception):
    """A draw that cannot be made now: the rule drawing it is skipped."""


class SearchStrategy(Generic[T]):
    """A generator: ``draw(rng)`` gives one value."""

    __slots__ = ("draw",)

    def __init__(self, draw: Callable[[Rng], T]) -> None:
        self.draw = draw

    def map(self, f: Callable[[T], U]) -> SearchStrategy[U]:
        return SearchStrategy(lambda rng: f(self.draw(rng)))

    def filter(self, keep: Callable[[T], bool]) -> SearchStrategy[T]:
        def filtered(rng: Rng) -> T:
            for _ in range(50):
                if keep(value := self.draw(rng)):
                    return value
            raise Discarded("a filter found nothing")

        return SearchStrategy(filtered)

    def flatmap(self, f: Callable[[T], SearchStrategy[U]]) -> SearchStrategy[U]:
        return SearchStrategy(lambda rng: f(self.draw(rng)).draw(rng))


def just(value: T) -> SearchStrategy[T]:
    return SearchStrategy(lambda _rng: value)


def booleans() -> SearchStrategy[bool]:
    return SearchStrategy(lambda rng: rng.random() < 0.5)


def sampled_from(elements: Iterable[T]) -> SearchStrategy[T]:
    values = tuple(elements)
    if not values:
        raise ValueError("sampled_from of nothing")
    return SearchStrategy(lambda rng: values[rng.randint(0, len(values) - 1)])


def integers(min_value: int, max_value: int) -> SearchStrategy[int]:
    """Uniform over small ranges; over wide ones a uniform bit length first (small values as
    likely as large ones), and a bound or its neighbour one draw in eight."""
    edges = sorted(
        {min_value, max_value, min(min_value + 1, max_value), max(max_value - 1, min_value)}
    )
    span = max_value - min_value

    def draw(rng: Rng) -> int:
        if rng.random() < 0.125:
            return edges[rng.randint(0, len(edges) - 1)]
        if span <= 1 << 16:
            return rng.randint(min_value, max_value)
        bits = rng.randint(0, span.bit_length())
        return min_value + min(rng.getrandbits(bits) if bits else 0, span)

    return SearchStrategy(draw)


def tuples(*parts: SearchStrategy[Any]) -> SearchStrategy[tuple[Any, ...]]:
    return SearchStrategy(lambda rng: tuple(p.draw(rng) for p in parts))


def builds(target: Callable[..., T], *args: SearchStrategy[Any]) -> SearchStrategy[T]:
    return SearchStrategy(lambda rng: target(*(a.draw(rng) for a in args)))


def one_of(*branches: Any) -> SearchStrategy[Any]:
    """A branch chosen uniformly (``one_of([a, b])`` or ``one_of(a, b)``); a branch that cannot
    draw now (an empty bundle) gives way to another."""
    single = len(branches) == 1 and not isinstance(branches[0], SearchStrategy)
    options: tuple[SearchStrategy[Any], ...] = tuple(branches[0] if single else branches)
    last = len(options) - 1

    def draw(rng: Rng) -> Any:
        first = rng.randint(0, last)
        try:
            return options[first].draw(rng)
        except Discarded:
            for i in rng.sample(range(last + 1), last + 1):
                if i != first:
                    with suppress(Discarded):
                        return options[i].draw(rng)
            raise

    return SearchStrategy(draw)


def lists(
    elements: SearchStrategy[T],
    min_size: int = 0,
    max_size: int | None = None,
    unique: bool = False,
) -> SearchStrategy[list[T]]:
    def draw(rng: Rng) -> list[T]:
        top = min_size + 8 if max_size is None else max_size
        if top > min_size + 8 and rng.random() < 0.8:  # mostly short, sometimes up to the bound
            top = min_size + 8
        size = rng.randint(min_size, top)
        out: list[T] = []
        for _ in range(size * 3 if unique else size):
            if len(out) == size:
                break
            try:
                value = elements.draw(rng)
            except Discarded:
                if min_size:
                    raise
                return out
            if not unique or value not in out:
                out.append(value)
        if len(out) < min_size:
            raise Discarded("too few unique elements")
        return out

    return SearchStrategy(draw)


_PLANES = ((0x20, 0x7E), (0, 0x1F), (0x7F, 0x24F), (0x250, 0xFFFF), (0x10000, 0x10FFFF))
_PLANE_WEIGHTS = (0.45, 0.05, 0.2, 0.2, 0.1)


def characters(
    *,
    exclude_categories: Sequence[str] = (),
    exclude_characters: str = "",
    codec: str | None = None,
) -> SearchStrategy[str]:
    """A code point, mostly printable ASCII, then control characters, Latin, the rest of the
    BMP and the astral planes; never a lone surrogate with ``codec="utf-8"``."""
    excluded = set(exclude_categories) | ({"Cs"} if codec == "utf-8" else set())

    def draw(rng: Rng) -> str:
        for _ in range(50):
            low, high = rng.choices(_PLANES, _PLANE_WEIGHTS)[0]
            char = chr(rng.randint(low, high))
            if char not in exclude_characters and unicodedata.category(char) not in excluded:
                return char
        raise Discarded("no character")

    return SearchStrategy(draw)


def text(
    alphabet: SearchStrategy[str] | str | None = None,
    min_size: int = 0,
    max_size: int | None = None,
) -> SearchStrategy[str]:
    chars = characters() if alphabet is None else alphabet
    if not isinstance(chars, SearchStrategy):
        chars = sampled_from(list(chars))
    return lists(chars, min_size=min_size, max_size=max_size).map("".join)


_NASTY_FLOATS = (
    0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1e-5, 1e-6, 1e-7, 1e15, 1e16, 1e17, 1e21, 1e22,
    2.0**53, 2.0**53 + 2, 2.0**63, 2.0**64, -(2.0**63), 5e-324, 2.2250738585072014e-308,
    sys.float_info.max, -sys.float_info.max, 123456789.123456789, 1 / 3,
)  # fmt: skip


def floats() -> SearchStrategy[float]:
    """Finite doubles: a nasty value, a small integer, or any exponent."""

    def draw(rng: Rng) -> float:
        if rng.random() < 0.3:
            return _NASTY_FLOATS[rng.randint(0, len(_NASTY_FLOATS) - 1)]
        if rng.random() < 0.3:
            return float(rng.randint(-(2**20), 2**20))
        value = math.ldexp(rng.random(), rng.randint(-1074, 1023))
        return -value if rng.random() < 0.5 else value

    return SearchStrategy(draw)


def recursive(
    base: SearchStrategy[Any],
    extend: Callable[[SearchStrategy[Any]], SearchStrategy[Any]],
    depth: int,
) -> SearchStrategy[Any]:
    """Nested up to ``depth`` levels: a leaf half the time at each level."""
    strategy = base
    for _ in range(depth):
        strategy = one_of(base, extend(strategy))
    return strategy


class DataObject:
    """A rule's ``data`` argument: draws more values while the rule runs."""

    def __init__(self, rng: Rng) -> None:
        self._rng = rng

    def draw(self, strategy: SearchStrategy[T], label: str | None = None) -> T:
        return strategy.draw(self._rng)


def data() -> SearchStrategy[DataObject]:
    return SearchStrategy(DataObject)


# -- the stateful part --------------------------------------------------------------------------
_MACHINE: list[RuleBasedStateMachine] = []
"""The machine whose example is running (bundles are drawn from it)."""


class Bundle(SearchStrategy[Any]):
    """Values earlier rules returned (``target=``), drawn uniformly; empty: the rule waits."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

        def draw(rng: Rng) -> Any:
            values = _MACHINE[-1].bundles.get(name)
            if not values:
                raise Discarded(f"bundle {name} is empty")
            return values[rng.randint(0, len(values) - 1)]

        super().__init__(draw)


@dataclass(frozen=True)
class Rule:
    function: Callable[..., Any]
    arguments: dict[str, SearchStrategy[Any]]
    target: Bundle | None
    initialize: bool

    @property
    def bundles(self) -> tuple[str, ...]:
        """Bundles the rule draws from directly: it can run only when none is empty."""
        return tuple(a.name for a in self.arguments.values() if isinstance(a, Bundle))


@dataclass(frozen=True)
class Multiple:
    values: tuple[Any, ...]


def multiple(*values: Any) -> Multiple:
    """Several values (or none) for a rule's target bundle."""
    return Multiple(values)


F = TypeVar("F", bound=Callable[..., Any])


def rule(
    *, target: Bundle | None = None, _init: bool = False, **arguments: SearchStrategy[Any]
) -> Callable[[F], F]:
    def mark(function: F) -> F:
        function._explore_rule = Rule(function, arguments, target, _init)  # type: ignore[attr-defined]
        return function

    return mark


def initialize(
    *, target: Bundle | None = None, **arguments: SearchStrategy[Any]
) -> Callable[[F], F]:
    return rule(target=target, _init=True, **arguments)


class RuleBasedStateMachine:
    """A machine: methods marked `rule` or `initialize`, in definition order (bases first)."""

    def __init__(self) -> None:
        self.bundles: dict[str, list[Any]] = {}

    @classmethod
    def rules(cls) -> tuple[list[Rule], list[Rule]]:
        """(initialize rules, rules)."""
        found: dict[str, Rule] = {}
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if isinstance(marked := getattr(value, "_explore_rule", None), Rule):
                    found[name] = marked
        every = list(found.values())
        return [r for r in every if r.initialize], [r for r in every if not r.initialize]

    def teardown(self) -> None:
        pass


def run_example(machine: RuleBasedStateMachine, rng: Rng, steps: int) -> int:
    """Run ``steps`` rules of ``machine`` (its initialize rules first, in an order the PRNG
    picks), then its teardown; the number of rules that ran.  What a rule raises propagates,
    after the teardown has run (what the teardown raises then is dropped)."""
    initial, rules = machine.rules()
    pending = list(initial)
    p_off = rng.randint(0, 254) / 255  # swarm testing: a share of the rules off for the example
    enabled = [r for r in rules if rng.random() >= p_off] or list(rules)
    ran = 0
    _MACHINE.append(machine)
    try:
        for _ in range(steps):
            if pending:
                chosen = pending.pop(rng.randrange(len(pending)))
            else:
                ready = [r for r in enabled if all(machine.bundles.get(b) for b in r.bundles)]
                if not ready:
                    ready = [r for r in rules if all(machine.bundles.get(b) for b in r.bundles)]
                chosen = ready[rng.randint(0, len(ready) - 1)]
            try:
                arguments = {k: s.draw(rng) for k, s in chosen.arguments.items()}
                result = chosen.function(machine, **arguments)
            except Discarded:  # a draw the rule could not make, before its arguments or in its body
                continue
            ran += 1
            if chosen.target is not None:
                values = result.values if isinstance(result, Multiple) else (result,)
                machine.bundles.setdefault(chosen.target.name, []).extend(values)
    except Interrupted:
        raise  # SIGINT/SIGTERM: stop now; a teardown would wait for the replies still owed
    except BaseException:
        with suppress(Exception):  # the rule's exception is the example's outcome
            machine.teardown()
        raise
    finally:
        _MACHINE.pop()
    machine.teardown()
    return ran


def example_random(seed_value: int, index: int) -> Rng:
    """The PRNG of example ``index`` of a run seeded ``seed_value``: a string seed, hashed by
    ``random`` itself, so no two (seed, index) pairs share a stream, in any process."""
    return random.Random(f"session-toolset explore {seed_value}:{index}")


def samples(strategy: SearchStrategy[T], count: int, seed_value: int = 0) -> list[T]:
    """``count`` values of ``strategy``, the same in every process (for tests and tools); draws
    that cannot be made are left out."""
    rng = random.Random(f"session-toolset samples {seed_value}")
    out: list[T] = []
    for _ in range(count):
        with suppress(Discarded):
            out.append(strategy.draw(rng))
    return out
