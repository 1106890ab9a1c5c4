"""Variants of the one definition: gate drift-rule profiles and helper overrides.

A `Variant` is a Python-level parameter of every transition.  Its profile selects one of the
alternative gate rules a spec author may want to compare.  Its overrides replace named helpers of
the definition: a transition helper made a `seam` is looked up in the variant's overrides on
every call, so a variant can swap one rule for another without a second copy of the definition
and without the definition knowing which replacements exist (the proofs keep their deliberate
single-rule breakages, and their names, to themselves).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

DEFAULT_PROFILE = "per-tool-pinned"

PROFILES: dict[str, str] = {
    "per-tool-pinned": "SPEC.md: per-tool digest and provenance pins, trust checked",
    "per-tool-digest": "per-tool digest check only: no provenance pin (SPEC.md step 3 skipped)",
    "generation-strict": "any catalog generation drift denies every call until the set is rebuilt",
}

F = TypeVar("F", bound=Callable[..., Any])

SEAMS: dict[str, Callable[..., Any]] = {}
"""Every helper a variant may override, by name: the definition's own rule (undispatched)."""


@dataclass(frozen=True, repr=False)
class Variant:
    """Which profile the gate follows, and which helpers (if any) are replaced.

    ``overrides`` maps a `seam` helper's name to its replacement (same signature); ``label``
    names the replacement set in reports and vectors, and is required exactly when there are
    overrides, so that no overridden variant passes for the definition itself.
    """

    profile: str = DEFAULT_PROFILE
    label: str | None = None
    overrides: Mapping[str, Callable[..., Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile}")
        if (self.label is None) != (not self.overrides):
            raise ValueError("a variant's overrides and its label go together")
        unknown = sorted(set(self.overrides) - set(SEAMS))
        if unknown:
            raise ValueError(f"not a helper a variant may replace: {', '.join(unknown)}")
        object.__setattr__(self, "overrides", dict(self.overrides))

    def __hash__(self) -> int:
        return hash((self.profile, self.label, frozenset(self.overrides.items())))

    def __repr__(self) -> str:
        """The same text in every process (replacements by name, not address): a cache key."""
        over = ", ".join(
            f"{k!r}: {f.__module__}.{f.__qualname__}" for k, f in sorted(self.overrides.items())
        )
        return f"Variant(profile={self.profile!r}, label={self.label!r}, overrides={{{over}}})"


DEFAULT = Variant()


def seam(rule: F, variant_at: int = 1) -> F:
    """``rule`` as a helper a variant may replace: every call looks ``rule``'s name up in the
    overrides of the variant passed at position ``variant_at`` (the parameter ``v``; absent: the
    default) and runs the replacement when there is one, else ``rule``.  A module rebinds each
    such helper after defining it (``name = seam(name)``: a decorator would hide the function
    from mutation testing); `spec_rule` gives back ``rule`` itself."""
    name = rule.__name__
    if name in SEAMS:
        raise ValueError(f"two helpers named {name} marked as seams")
    SEAMS[name] = rule

    @functools.wraps(rule)
    def dispatch(*args: Any, **kwargs: Any) -> Any:
        v: Variant = args[variant_at] if len(args) > variant_at else kwargs.get("v", DEFAULT)
        return v.overrides.get(name, rule)(*args, **kwargs)

    return cast(F, dispatch)


def spec_rule(helper: F) -> F:
    """The definition's own rule behind the `seam` ``helper`` (never dispatched): what a
    replacement calls to break one rule and keep the rest."""
    return cast(F, SEAMS[helper.__name__])
