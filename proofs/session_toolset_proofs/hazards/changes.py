"""What the gate still authorizes after each kind of catalog change (the systematic sweep).

From one base state - ``t0`` core and ``t1`` exactly activated in set ``A``, both trusted MCP
records - each kind of catalog change is applied to the called tool (or to an unrelated one),
and the model's answers are recorded: the gate's decision for the core tool and for the
activated tool, ``is_stale``, and what a carry-forward rebuild reports.  Every cell is computed
by the concrete model (the one definition), so the table is regenerated, never written.  A
cell a reader may find surprising is the seed of a hazard (`definitions`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from session_toolset_model.enumerate import ALG, T0, T1, T2, Action, insert, new_set, upsert, user
from session_toolset_model.profiles import DEFAULT
from session_toolset_model.state import State, initial

BASE = (
    insert(T0, "d0", "trusted"),
    insert(T1, "d0", "trusted"),
    new_set("A", "s-1", (T0,)),
    user("A", T1),
)

Change = Callable[[str], tuple[Action, ...]]

CHANGES: tuple[tuple[str, Change], ...] = (
    ("insert an unrelated tool", lambda t: (insert(T2, "d0", "trusted"),)),
    ("rebase_past (generation only)", lambda t: (Action.of("catalog_rebase_past", prior=5),)),
    ("upsert an identical record", lambda t: (upsert(t, t, "d0", "trusted"),)),
    ("upsert: new schema digest", lambda t: (upsert(t, t, "d1", "trusted"),)),
    ("upsert: coherent imposter", lambda t: (upsert(t, t, "d0", "imposter"),)),
    ("upsert: untrusted (Unverified)", lambda t: (upsert(t, t, "d0", "untrusted"),)),
    ("upsert: provenance mismatch", lambda t: (upsert(t, t, "d0", "mismatch"),)),
    ("upsert renaming it away", lambda t: (upsert(t, T2, "d0", "trusted"),)),
    ("remove", lambda t: (Action.of("catalog_remove", tool=t),)),
    (
        "remove, then insert an identical record",
        lambda t: (Action.of("catalog_remove", tool=t), insert(t, "d0", "trusted")),
    ),
)


@dataclass(frozen=True)
class Row:
    change: str
    core: str
    activated: str
    stale: bool
    progressive: str
    default: str


def _run(st: State, acts: tuple[Action, ...]) -> State:
    for a in acts:
        res = a.run(DEFAULT, st)
        assert res.code == "ok", (a, res.code)
        st = res.state
    return st


def _short(code: str) -> str:
    return "authorized" if code == "ok" else code.rsplit(".", 1)[1]


def sweep() -> list[Row]:
    base = _run(initial(ALG), BASE)
    rows = []
    for label, change in CHANGES:
        on_core = _run(base, change(T0))
        on_act = _run(base, change(T1))
        core = Action.of("authorize", name="A", tool=T0).run(DEFAULT, on_core).code
        act = Action.of("authorize", name="A", tool=T1).run(DEFAULT, on_act).code
        stale = Action.of("is_stale", name="A").run(DEFAULT, on_act).extras["stale"]
        rows.append(
            Row(
                label,
                _short(core),
                _short(act),
                bool(stale),
                _rebuilt(on_act, True),
                _rebuilt(on_act, False),
            )
        )
    return rows


def _rebuilt(st: State, progressive: bool) -> str:
    """What a carry-forward rebuild does with the activation of ``t1``, and the gate after."""
    rebuilt = Action.of(
        "rebuild", name="A", into="A", progressive=progressive, carry_forward=True
    ).run(DEFAULT, st)
    reason = rebuilt.extras["dropped"][T1]
    if rebuilt.state.sets["A"].core[T1] is not None:
        kept = "now core"
    elif reason == "none":
        kept = "carried"
    else:
        kept = f"dropped ({reason})"
    after = Action.of("authorize", name="A", tool=T1).run(DEFAULT, rebuilt.state).code
    return f"{kept}, {_short(after)}"


def table(rows: list[Row]) -> str:
    """Markdown: one row per change kind."""
    lines = [
        "| catalog change (to the called tool) | core call | activated call | stale | "
        "progressive rebuild, then the call | default rebuild, then the call |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        stale = "yes" if r.stale else "no"
        lines.append(
            f"| {r.change} | {r.core} | {r.activated} | {stale} | {r.progressive} | {r.default} |"
        )
    return "\n".join(lines)
