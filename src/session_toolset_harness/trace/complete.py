"""Complete mode: the log holds every operation of a partition from its first ``reset`` on.

Each partition gets its own expected world (`session_toolset_model.world.World`, the model's
oracle plus PROTOCOL.md's bookkeeping).  From the partition's first ``reset`` on, every request
is answered by the world and the observed reply must contain the world's *whole* reply (the
PROTOCOL.md subset rule with the full expected reply: every field present with an equal value
and the same JSON type, lists of the same length and order).  Keys the world does not produce
are allowed, as PROTOCOL.md replies are open: ``message`` (never compared), a hello's
``implementation``, any diagnostic field.

Before a partition's first ``reset`` only the ops whose reply does not depend on the state
(``hello``, ``tool_id_parse``, ``tool_id``, ``session_id_parse``, ``digest``,
``carry_forward_enabled``) are checked; every other line there ran against an unknown state and
is counted unchecked (``before_reset``), which the summary says.  A request whose answer
SPEC.md leaves open (a line nested deeper than the 127 levels SPEC.md 1.4 requires) is not
checked either (``open``); unless its op is one of those (they cannot change the state), neither
is anything after it until the next ``reset``, since the world can no longer know the state.
Unchecked lines are never counted as passes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Final

from session_toolset_model.world import OutOfScope, World
from session_toolset_model.world.json_text import INT_MAX, INT_MIN

from ..conform.matcher import Mismatch, first_difference
from .logline import RecordedLine
from .sections import section

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_DEPTH_LIMIT: Final = 126  # the request object is level 1 of SPEC.md 1.4's 127
STATELESS: Final = frozenset(
    {"hello", "tool_id_parse", "tool_id", "session_id_parse", "digest", "carry_forward_enabled"}
)


@dataclass(frozen=True)
class Violation:
    """A reply the model does not give: where, what was expected, what was observed."""

    file: str
    line: int
    stream: str | None
    op: str
    expected: dict[str, Any]
    observed: dict[str, Any]
    path: str
    message: str
    section: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Counts:
    """How many lines a partition (or a whole run) checked and left unchecked."""

    lines: int = 0
    checked: int = 0
    before_reset: int = 0
    open: int = 0

    def add(self, other: Counts) -> None:
        self.lines += other.lines
        self.checked += other.checked
        self.before_reset += other.before_reset
        self.open += other.open


def _stateless(op: object) -> bool:
    """An op whose reply does not depend on the state and which does not change it."""
    return isinstance(op, str) and op in STATELESS


def reply_difference(expected: dict[str, Any], observed: dict[str, Any]) -> Mismatch | None:
    """The first way ``observed`` is not the world's reply ``expected`` (None when it is): the
    PROTOCOL.md subset rule with the whole expected reply.  Keys the world does not produce
    (``message``, hello's ``implementation``, any diagnostic field) are allowed at every level;
    lists compare element by element.  Both modes compare every reply with this rule."""
    return first_difference(expected, observed)


def agrees(expected: dict[str, Any], observed: object) -> bool:
    """``observed`` is the world's reply ``expected`` (`reply_difference` finds nothing)."""
    return first_difference(expected, observed) is None


def _plain(value: object, depth: int) -> bool:
    """True when the request reads the same as a Python value and as a request line: no lone
    surrogate, no infinity, no integer a line would read as a double, nesting within SPEC.md
    1.4's limit.  Otherwise the world reads
    the line as the runner would send it."""
    if isinstance(value, str):
        return value.isascii() or _SURROGATE.search(value) is None
    if isinstance(value, float):
        return math.isfinite(value)
    if type(value) is int:  # outside the range a request line reads as an integer
        return INT_MIN <= value <= INT_MAX
    if isinstance(value, dict):
        return depth < _DEPTH_LIMIT and all(
            _plain(k, depth) and _plain(v, depth + 1) for k, v in value.items()
        )
    if isinstance(value, list):
        return depth < _DEPTH_LIMIT and all(_plain(v, depth + 1) for v in value)
    return True


PartitionState = tuple[str | None, int, int, Counts, Any, bool]
"""What `Partition.state` keeps of a partition: stream, first line, violations, counts, the saved
world (None before the first ``reset``) and whether the state is open."""


_SCRATCH: list[World] = []


def _scratch() -> World:
    """A world for the ops whose reply does not depend on the state, which never change it."""
    if not _SCRATCH:
        _SCRATCH.append(World())
    return _SCRATCH[0]


class Partition:
    """One partition's expected world and its counts; `check` takes its lines in log order."""

    def __init__(
        self, file: str, stream: str | None, first: int = 0, spare: World | None = None
    ) -> None:
        """``spare``: a world no longer used (of a partition set aside), reset and taken as this
        partition's world at its first ``reset`` instead of building one."""
        self.file = file
        self.stream = stream
        self.first = first
        """The partition's first line number: results are listed in this order."""
        self.found = 0
        """Violations found so far."""
        self.counts = Counts()
        self._world: World | None = None
        self._spare = spare
        self._open = False

    def _fresh(self) -> World:
        world, self._spare = self._spare, None
        if world is None:
            return World()
        world.reset()
        return world

    def release(self) -> World | None:
        """The partition's world, for another partition to reuse (this one is done with)."""
        world, self._world = self._world or self._spare, None
        return world

    def state(self) -> PartitionState:
        """Everything the partition needs to go on checking, as plain picklable values (the
        scratch world of stateless ops before the first ``reset`` is rebuilt when needed)."""
        saved = None if self._world is None else self._world.save()
        return (self.stream, self.first, self.found, self.counts, saved, self._open)

    @classmethod
    def restored(cls, file: str, state: PartitionState, spare: World | None = None) -> Partition:
        """The partition `state` was taken from, as it was (``spare`` as in the constructor)."""
        stream, first, found, counts, saved, is_open = state
        part = cls(file, stream, first, spare)
        part.found, part.counts, part._open = found, counts, is_open
        if saved is not None:
            part._world = part._fresh()
            part._world.restore(saved)
        return part

    @property
    def world(self) -> World | None:
        """The expected world (None before the first ``reset``): its ``save``/``restore`` let a
        caller try several replies at one line (the partial checker, the mutation tests)."""
        return self._world

    def check(self, recorded: RecordedLine) -> Violation | None:
        """The violation this line shows, or None (also when the line is not checked)."""
        self.counts.lines += 1
        request = recorded.request
        op = request.get("op")
        world = self._world
        if op == "reset":  # its reply never depends on the state; a malformed one changes nothing
            if world is None:
                world = self._fresh()
        elif world is None:
            if not _stateless(op):
                self.counts.before_reset += 1
                return None
            world = _scratch()
        elif self._open:
            self.counts.open += 1
            return None
        try:
            plain = _plain(request, 0)
            expected = world.answer(request) if plain else world.handle(request)
        except OutOfScope:  # its reply is open, and the state too unless the op cannot change it
            self._open = self._world is not None and not _stateless(op)
            self.counts.open += 1
            return None
        if op == "reset" and expected.get("ok") is True:  # a malformed reset resets nothing
            self._world, self._open = world, False
        self.counts.checked += 1
        found = reply_difference(expected, recorded.reply)
        if found is None:
            return None
        name = op if isinstance(op, str) else "?"
        self.found += 1
        return Violation(
            self.file,
            recorded.line,
            self.stream,
            name,
            expected,
            recorded.reply,
            found.path,
            found.message,
            section(name, expected),
        )


def strict_violation(file: str, stream: str | None, recorded: RecordedLine) -> Violation | None:
    """``--strict-replies``: the reply breaks a PROTOCOL.md rule or ``reply.schema.json``
    (unknown keys, a grant that is also a denial), checked as ``conform --strict-replies``
    checks an adapter's reply, whatever the model's reply is."""
    from ..conform import checks, schemas  # jsonschema: loaded only for the flag

    op = recorded.request.get("op")
    problem = checks.reply_problem(recorded.reply)
    if problem is None:
        found = schemas.validate_reply(op, recorded.reply)
        if not found:
            return None
        problem = (found[0].path, f"reply schema: {found[0].message}")
    return Violation(
        file,
        recorded.line,
        stream,
        op if isinstance(op, str) else "?",
        {},
        recorded.reply,
        problem[0],
        f"protocol rule broken at {problem[0]}: {problem[1]}",
        "PROTOCOL.md (reply schema, --strict-replies)",
    )
