"""The pytest plugin (entry point ``pytest11``): ``pytest --autoswitch-traces DIR`` collects every ``*.itf.json`` under
DIR as a test item replayed on the chosen engines, the divergence report as the failure message.

Each trace is one item, ``<its path>::replay``, run by ``replay_file`` (conformance/trace/replay.py) on every engine of
``--autoswitch-engines``: it passes when every engine passes, as ``autoswitch replay`` exits 0; a failing item's message
is the lines ``autoswitch replay`` prints for the failing engines (a divergence with the values on both sides, a violation,
a malformed trace naming the field), then the command that reproduces it. Each DIR is added to pytest's arguments, so
the traces run beside whatever else the command collects.

Without the option the plugin only declares its options: :func:`pytest_configure` registers the collector
(:class:`TraceCollection`) and imports the model only when a DIR is given.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from attrs import frozen

SUFFIX = ".itf.json"
ENGINES = ("reference", "impl")  # engines.KINDS, spelled here so that a run without the option imports no engine


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("autoswitch")
    group.addoption("--autoswitch-traces", action="append", default=[], metavar="DIR",
                    help="collect every *.itf.json under DIR as a test replayed by autoswitch")
    group.addoption("--autoswitch-engines", default=",".join(ENGINES), metavar="ENGINES",
                    help=f"the engines that replay each trace, comma-separated (default: {','.join(ENGINES)})")


def engines_option(value: str) -> tuple[str, ...]:
    """``--autoswitch-engines``: a comma-separated, non-empty list of ``engines.KINDS``."""
    names = tuple(n.strip() for n in value.split(",") if n.strip())
    unknown = [n for n in names if n not in ENGINES]
    if not names or unknown:
        raise pytest.UsageError(f"--autoswitch-engines: {', '.join(unknown) or 'no engine'}; choose among {', '.join(ENGINES)}, "
                                "comma-separated")
    return tuple(dict.fromkeys(names))


def pytest_configure(config: pytest.Config) -> None:
    """With ``--autoswitch-traces``: each DIR not already under a path pytest collects is added to them, and
    :class:`TraceCollection` registered; without it, nothing."""
    dirs = config.getoption("autoswitch_traces", default=[])
    if not dirs:
        return
    here = config.invocation_params.dir
    roots = []
    for d in dirs:
        path = here / d
        if not path.exists():
            raise pytest.UsageError(f"--autoswitch-traces: {d} does not exist")
        roots.append(path.resolve())
    engines = engines_option(config.getoption("autoswitch_engines"))
    collected = [(here / a.split("::")[0]).resolve() for a in config.args]
    config.args.extend(d for d, root in zip(dirs, roots, strict=True) if not any(root == c or c in root.parents for c in collected))
    config.pluginmanager.register(TraceCollection(tuple(dirs), tuple(roots), engines), "autoswitch-traces")


@frozen
class TraceCollection:
    """The hooks that exist only with ``--autoswitch-traces``: every ``*.itf.json`` under ``roots`` (the folders ``dirs`` as
    given, resolved) is a :class:`TraceFile`."""

    dirs: tuple[str, ...]
    roots: tuple[Path, ...]
    engines: tuple[str, ...]

    def pytest_report_header(self) -> str:
        return f"autoswitch: *{SUFFIX} under {', '.join(self.dirs)} replayed on {', '.join(self.engines)}"

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> TraceFile | None:
        if not file_path.name.endswith(SUFFIX):
            return None
        resolved = file_path.resolve()
        if not any(resolved == r or r in resolved.parents for r in self.roots):
            return None
        return TraceFile.from_parent(parent, path=file_path, engines=self.engines)


class TraceFile(pytest.File):
    """One trace file: one item, ``replay``."""

    def __init__(self, *, engines: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.engines = engines

    def collect(self) -> Iterator[TraceItem]:
        yield TraceItem.from_parent(self, name="replay", engines=self.engines)


class ReplayFailed(Exception):
    """The lines ``autoswitch replay`` prints for the engines whose verdict failed."""


class TraceItem(pytest.Item):
    """A trace replayed on each engine by ``replay_file``; it passes when every verdict is ``pass``."""

    def __init__(self, *, engines: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.engines = engines

    def runtest(self) -> None:
        from autoswitch.conformance.trace.replay import replay_file

        results = [replay_file(self.shown_path(), engine) for engine in self.engines]
        for r in results:
            self.user_properties.append((r.engine, r.status))
        failed = [r.describe() for r in results if not r.ok]
        if failed:
            raise ReplayFailed("\n".join(failed))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ReplayFailed):
            return f"{excinfo.value}\nreproduce: {self.command()}"
        return super().repr_failure(excinfo, style)

    def shown_path(self) -> str:
        """The trace's path relative to where pytest was started when it lies below, as ``autoswitch replay`` there names it."""
        here = self.config.invocation_params.dir
        return str(self.path.relative_to(here)) if self.path.is_relative_to(here) else str(self.path)

    def command(self) -> str:
        against = "" if set(self.engines) == set(ENGINES) else f" --against {self.engines[0]}"
        return f"autoswitch replay {self.shown_path()}{against}"

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"autoswitch replay {self.shown_path()} [{','.join(self.engines)}]"
