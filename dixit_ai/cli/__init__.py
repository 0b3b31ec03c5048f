"""The ``dixit-ai`` command: one subcommand per job, each with ``--help``.

Every command exits with 0 (done), 1 (it ran and what it checked or played failed, or its work
failed part-way: a full disk, a folder that became unwritable), 2 (bad input, found before any
work, named in the message; nothing written) or 130 (interrupted): see
:mod:`dixit_ai.cli.common`.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence

from dixit_ai.cli import (
    agents,
    bench,
    cache,
    deck,
    play,
    replay,
    serve,
    simulate,
    tournament,
    train,
)
from dixit_ai.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    RUN_ERRORS,
    RunFailed,
    plain,
)

SUBCOMMANDS = (simulate, replay, deck, agents, train, cache, play, serve, bench, tournament)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="dixit-ai",
        description="A research harness in which AI players play the board game Dixit.",
    )
    parser.add_argument("--version", action="version", version=_version())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in SUBCOMMANDS:
        module.register(subparsers)
    _plain_help(parser)
    return parser


def _plain_help(parser: argparse.ArgumentParser) -> None:
    """Help texts without reStructuredText markup (docstrings serve as descriptions), in
    every parser and subparser."""
    parser.description = plain(parser.description)
    parser.epilog = plain(parser.epilog)
    for action in parser._actions:
        if isinstance(action.help, str):
            action.help = plain(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = plain(choice.help)
            for sub in dict.fromkeys(action.choices.values()):
                _plain_help(sub)


def _version() -> str:
    from dixit_ai import __version__

    return f"dixit-ai {__version__}"


def _silence_stdout() -> None:
    """Point standard output at the null device: its reader is gone, and Python would report
    the unflushed rest as another broken pipe when it exits."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a test's captured stream)
        pass


def _tolerant_output() -> None:
    """Let standard output and error replace (with ``?``) the characters their encoding cannot
    hold (a caption's 'é', an en dash in a licence, under ``PYTHONIOENCODING=ascii`` or a Latin-1
    locale): strictly, the first of them ended the command as if its input were bad. Files
    are written as UTF-8 whatever the locale; ``--json`` output escapes what it cannot encode
    (see :func:`dixit_ai.cli.common.json_for_stdout`)."""
    for stream in (sys.stdout, sys.stderr):
        # Under the C or POSIX locale (Python's UTF-8 mode off) standard output's handler is
        # surrogateescape: it writes undecodable input back as it came, but fails on any other
        # character it cannot encode, as strict does.
        if isinstance(stream, io.TextIOWrapper) and stream.errors in ("strict",
                                                                      "surrogateescape"):
            try:
                stream.reconfigure(errors="replace")
            except (AttributeError, ValueError, io.UnsupportedOperation):  # pragma: no cover
                pass


PATH_ARGUMENTS = frozenset({"paths", "out", "spec"})
"""Arguments kept as text that name files or folders (``replay``'s record files, an ``--out``
folder, ``deck``'s spec, which reads or writes a deck but records nothing), which a name the
locale cannot decode does not harm."""


def _undecodable_argument(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse a text argument that holds bytes the locale's encoding could not decode.

    Under an ASCII locale (``LC_ALL=C`` with Python's UTF-8 mode off) ``Zoë`` arrives as
    ``Zo`` and two lone surrogates, which no UTF-8 record, report or config file can hold: the
    work was done, then writing its result failed. File and folder arguments (``Path``, and
    those of :data:`PATH_ARGUMENTS`) are exempt: the operating system opens them by their bytes.

    Raises:
        ValueError: naming the option, the bytes and what to set instead.
    """
    for dest, value in vars(args).items():
        if dest in PATH_ARGUMENTS:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        for text in values:
            if not isinstance(text, str) or not any(
                    0xD800 <= ord(char) <= 0xDFFF for char in text):
                continue
            raw = os.fsencode(text)
            option = _option_of(parser, args, dest)
            raise ValueError(
                f"{option} {raw!r}: the locale's encoding ({sys.getfilesystemencoding()}) cannot "
                "decode its bytes as text, which the run's records and reports must hold; run "
                "under a UTF-8 locale (LC_ALL=C.UTF-8) or with PYTHONUTF8=1")


def _option_of(parser: argparse.ArgumentParser, args: argparse.Namespace, dest: str) -> str:
    """How the command that ``args`` chose spells the option stored in ``dest`` (its long flag,
    or its name for a positional argument)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            found = dest if chosen is None else _option_of(chosen, args, dest)
            if found != dest:
                return found
        elif action.dest == dest and action.option_strings:
            return max(action.option_strings, key=len)
    return dest


def _closed_streams() -> bool:
    """Check the standard streams a command was started with: a closed standard error (``2>&-``)
    is pointed at the null device (its progress bars and messages are discarded, as asked; they
    failed the run); a closed standard output (``>&-``) is refused, since the command's result
    would be lost after its work. Return whether standard output is closed."""
    if sys.stderr is None:
        try:  # on file descriptor 2, which the command's worker processes inherit
            devnull = os.open(os.devnull, os.O_WRONLY)
            if devnull != 2:
                os.dup2(devnull, 2)
                os.close(devnull)
            sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", buffering=1)
        except OSError:  # pragma: no cover - no null device
            pass
    return sys.stdout is None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    if _closed_streams():
        print("dixit-ai: error: standard output is closed; give it a file, or /dev/null to "
              "discard what the command prints", file=sys.stderr)
        return EXIT_USAGE
    _tolerant_output()
    try:  # building the parser imports every command's module: Ctrl-C may come meanwhile
        parser = build_parser()
        args = parser.parse_args(argv)  # --help exits 0, a usage error 2 (argparse's SystemExit)
    except KeyboardInterrupt:
        print("dixit-ai: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    try:
        _undecodable_argument(parser, args)
        status: int = args.func(args)
        sys.stdout.flush()  # a reader gone away is found here, not at the interpreter's exit
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        print(f"dixit-ai {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError as error:  # a count too large for this machine: a message, not a trace
        detail = f" ({error})" if str(error) else ""
        print(f"dixit-ai {args.command}: failed: out of memory{detail}; give smaller counts "
              "(games, items, resamples, cards)", file=sys.stderr)
        return EXIT_FAILED
    except RunFailed as error:  # part-way through the work: the run failed
        print(f"dixit-ai {args.command}: failed: {error}", file=sys.stderr)
        return EXIT_FAILED
    except RUN_ERRORS as error:  # before the work (see common.running): bad input
        print(f"dixit-ai {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    return status


if __name__ == "__main__":
    sys.exit(main())
