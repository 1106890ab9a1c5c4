"""What one request does, read from the expected world's own handlers without running the model.

The symbolic check needs, for each recorded request, the order in which PROTOCOL.md validates
its fields (name lookups interleaved with boundary parsing) and the model operation it finally
calls.  Rather than restating each op's row, `plan` runs the expected world's handler
(`session_toolset_model.world.World`) with its name lookups and its oracle replaced by probes:
every set or grant lookup is noted (and assumed to succeed), and the first oracle call or world
observation stops the handler and is returned with its arguments.  What comes back is the
lookups made, then either a reply the handler decides without the world (a field fault, a pure
op, a forged grant) or the call the world would answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from session_toolset_model.concrete import Grant
from session_toolset_model.world import OutOfScope, World
from session_toolset_model.world.fields import Fields

Reply = dict[str, Any]


class Unsupported(Exception):
    """A request whose answer depends on what the abstraction does not keep symbolically."""


@dataclass(frozen=True)
class GrantRef:
    """A named grant passed to the oracle: resolved against the symbolic world's grants."""

    name: str


@dataclass(frozen=True)
class Plan:
    """Lookups made (``("set" | "grant", name)``, in order), then a reply or a call."""

    lookups: tuple[tuple[str, str], ...]
    reply: Reply | None
    """The reply when every lookup succeeds and the world is not consulted."""
    call: tuple[str, tuple[Any, ...]] | None
    """The oracle method (or ``reset``, ``snapshot``, ``catalog_state``, ``factory_calls``, or
    ``wire``: the answer depends on runtime names, which the model does not keep)."""
    forged: tuple[str, Grant] | None = None
    """A grant `forge_grant` names (written only when the reply is a success)."""


class _Call(Exception):
    def __init__(self, method: str, args: tuple[Any, ...]) -> None:
        super().__init__(method)
        self.method = method
        self.args_ = args


class _Oracle:
    """Stops at the first operation the world would run."""

    def __getattr__(self, method: str) -> Any:
        def call(*args: Any) -> Any:
            raise _Call(method, args)

        return call


class _Sets:
    def __init__(self, lookups: list[tuple[str, str]]) -> None:
        self._lookups = lookups

    def __contains__(self, name: object) -> bool:
        self._lookups.append(("set", str(name)))
        return True

    def __getitem__(self, name: str) -> Any:
        raise _Call("snapshot", (name,))


class _Counts:
    def get(self, tool: str, default: int) -> int:
        raise _Call("factory_calls", (tool,))


class _Observation:
    def __init__(self, lookups: list[tuple[str, str]]) -> None:
        self._lookups = lookups

    def __getitem__(self, key: str) -> Any:
        if key == "sets":
            return _Sets(self._lookups)
        if key == "factory_calls":
            return _Counts()
        raise _Call("catalog_state", ())


class _Probe(World):
    """The expected world with probes for lookups, observations and the oracle."""

    def __init__(self) -> None:
        super().__init__()
        self.lookups: list[tuple[str, str]] = []
        self.oracle = _Oracle()  # type: ignore[assignment]

    def reset(self) -> None:
        raise _Call("reset", ())

    def observe(self) -> dict[str, Any]:
        return _Observation(self.lookups)  # type: ignore[return-value]

    def live(self) -> Any:
        raise _Call("wire", ())

    def _set(self, f: Fields, name: str = "set") -> str:
        set_name = f.string(name)
        self.lookups.append(("set", set_name))
        return set_name

    def _grant(self, name: str) -> Grant:
        self.lookups.append(("grant", name))
        return GrantRef(name)  # type: ignore[return-value]


def plan(request: dict[str, Any]) -> Plan:
    """The plan of one request (raises `Unsupported` for what the symbolic check cannot follow)."""
    probe = _Probe()
    try:
        reply = probe.handle(request)
    except _Call as call:
        return Plan(tuple(probe.lookups), None, (call.method, call.args_))
    except OutOfScope as err:
        raise Unsupported(str(err)) from err
    forged = None
    if request.get("op") == "forge_grant" and reply.get("ok") is True:
        name, grant = next(iter(probe.grants.items()))
        forged = (name, grant)
    return Plan(tuple(probe.lookups), reply, None, forged)
