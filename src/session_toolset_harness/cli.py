"""``session-toolset``: one console script, one subcommand per job, each imported only when
chosen (``adapter`` starts without loading Z3; a broken optional piece cannot take the others
down).  Exit codes: 0 success, 1 the checked thing failed, 2 a wrong command line or input, or a
missing dependency; every error is one line ``session-toolset CMD: error: ...``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from typing import BinaryIO, TextIO, cast

from .argtypes import UsageError

__all__ = ["main"]

USAGE = """\
usage: session-toolset COMMAND [ARGS...]

The reference model and conformance harness for session tool activation (SPEC.md).

commands:
  check     the main job: prove the model (default profile) and run the conformance
            corpus against the reference implementation; one summary, one exit code
  prove     check the Z3 proof obligations of the model (witnesses, mutants, profiles)
  conform   run conformance vectors against any PROTOCOL.md adapter
  explore   model-based random testing of any PROTOCOL.md adapter against the model
  trace     check a runtime's recorded requests and replies (JSON Lines) against the model
  adapter   serve the reference implementation over PROTOCOL.md v1 on stdin/stdout

Run 'session-toolset COMMAND --help' for the options of one command.
options:
  -h, --help     show this text
  --version      print the version
"""


def _adapter(argv: list[str]) -> int:
    if argv in (["-h"], ["--help"]):
        print(
            "usage: session-toolset adapter [--record FILE]\n\n"
            "Serve the reference implementation over PROTOCOL.md v1: one JSON request per\n"
            "line on stdin, one JSON reply per line on stdout; exits 0 at EOF.\n\n"
            "  --record FILE  also write every request object and its reply to FILE as a\n"
            "                 trace log ('session-toolset trace FILE'; docs/trace.md)"
        )
        return 0
    record = None
    if len(argv) == 2 and argv[0] == "--record":
        record = argv[1]
    elif len(argv) == 1 and argv[0].startswith("--record="):
        record = argv[0].partition("=")[2]
    elif argv:
        raise UsageError("takes only --record FILE (see --help)")
    from session_toolset.adapter import main as adapter_main
    from session_toolset.adapter import serve

    if record is None:
        return adapter_main()
    from .trace.record import TraceWriter, recording

    try:
        out = open(record, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as err:
        raise UsageError(f"cannot write --record {record}: {err.strerror or err}") from None
    with out:
        lines, replies = recording(sys.stdin.buffer, sys.stdout, TraceWriter(out))
        return serve(cast(BinaryIO, lines), cast(TextIO, replies), sys.stderr)


def _lazy(module: str) -> Callable[[list[str]], int]:
    """The ``main`` of ``module`` (relative to this package), imported when first called."""

    def command(argv: list[str]) -> int:
        run: Callable[[list[str]], int] = importlib.import_module(module, __package__).main
        return run(argv)

    return command


def _prove(argv: list[str]) -> int:
    from session_toolset_proofs.cli import main as prove_main

    from .independent import replay
    from .interrupt import raising_on_signals
    from .progress import Progress, on_terminal

    def progress(total: int, quiet: bool) -> Progress:
        return Progress("prove", total, "checks", enabled=on_terminal(quiet))

    with raising_on_signals():  # SIGTERM too: prove writes what finished, like the others
        return prove_main(argv, independent=replay, progress=progress)


COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "adapter": _adapter,
    "check": _lazy(".check"),
    "prove": _prove,
    "conform": _lazy(".conform.cli"),
    "explore": _lazy(".explore.cli"),
    "trace": _lazy(".trace.cli"),
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, end="", file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    if args[0] == "--version":
        from session_toolset import __version__

        print(f"session-toolset {__version__}")
        return 0
    command = COMMANDS.get(args[0])
    if command is None:
        print(
            f"session-toolset: error: unknown command {args[0][:40]!r} (see --help)",
            file=sys.stderr,
        )
        return 2
    try:
        return command(args[1:])
    except ModuleNotFoundError as err:
        # A dependency missing from the environment (pip install --no-deps, a half-removed
        # venv): every command's imports are declared in pyproject.toml, so this is a broken
        # installation, not a bug to show as a traceback.
        # The top-level package is what an installation lacks (``hypothesis``, not the
        # ``hypothesis.control`` a ``from`` import happened to ask for first).
        missing = err.name.partition(".")[0] if err.name else str(err)
        print(
            f"session-toolset {args[0]}: error: needs the Python module {missing!r}, which is "
            "not installed; reinstall with 'pip install session-toolset'",
            file=sys.stderr,
        )
        return 2
    except UsageError as err:
        print(f"session-toolset {args[0]}: error: {err}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # argparse's --help and usage errors inside a subcommand
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except KeyboardInterrupt as err:  # Ctrl-C, or SIGTERM where a command asked for it
        from .interrupt import exit_status

        return exit_status(err)
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error worth a traceback.
        return 1


if __name__ == "__main__":
    sys.exit(main())
