"""The package's layers hold: no import cycle between its modules, and a module imports only from its own layer or
those below. Every import counts, at the top of a module or inside a function (or under TYPE_CHECKING), read from
the source with ``ast``; only the package's own modules are edges (``from P import name`` is an edge to the module
``P.name`` when there is one, else to ``P``). A new module needs a layer: the longest prefix of LAYERS naming it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from autoswitch.conformance.check.liveness import components

ROOT = Path(__file__).resolve().parents[2]
# the package's folders (pyproject.toml's package-dir) -> module names
SOURCES = {"reference": "autoswitch.reference", "impl": "autoswitch.impl", "conformance": "autoswitch.conformance"}

# Bottom to top: a module may import from its own layer and the layers below it.
MODEL, ENGINES, TOOLS, CLI = "model", "engines and traces", "checkers and searches", "cli"
ORDER = (MODEL, ENGINES, TOOLS, CLI)
_C = "autoswitch.conformance"
LAYERS = {
    # the reference model and the implementation: each on its own (APART)
    "autoswitch.reference": MODEL,
    "autoswitch.impl": MODEL,
    # the engines (reference, impl, RocketMQ's own code) behind one interface, the traces and what builds or reads them,
    # the exploration of Next, and the registry of settings the tools run
    f"{_C}.errors": ENGINES,
    f"{_C}.paths": ENGINES,
    f"{_C}.engines": ENGINES,
    f"{_C}.rocketmq": ENGINES,
    f"{_C}.trace": ENGINES,
    f"{_C}.scenarios": ENGINES,
    f"{_C}.explore": ENGINES,
    f"{_C}.controls": ENGINES,
    # the checkers, the searches and what reports on them
    f"{_C}.check": TOOLS,
    f"{_C}.cfgs": TOOLS,
    f"{_C}.simulation": TOOLS,
    f"{_C}.logs": TOOLS,
    f"{_C}.tla": TOOLS,
    f"{_C}.z3": TOOLS,
    f"{_C}.cluster": TOOLS,
    f"{_C}.html": TOOLS,
    f"{_C}.known_bugs": TOOLS,
    f"{_C}.compare": TOOLS,
    f"{_C}.bench": TOOLS,
    # the entry points: the command line, the pytest plugin, the package's module map
    f"{_C}.cli": CLI,
    f"{_C}.pytest_plugin": CLI,
    _C: CLI,
}
APART = {("autoswitch.impl", "autoswitch.reference"), ("autoswitch.reference", "autoswitch.impl")}  # neither imports the other


def _modules() -> dict[str, Path]:
    modules = {}
    for folder, package in SOURCES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            modules[".".join([package, *(parts[:-1] if parts[-1] == "__init__" else parts)])] = path
    return modules


MODULES = _modules()


def _imported(module: str, path: Path) -> Iterator[str]:
    """The package's modules ``module`` imports, anywhere in its source."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                yield name


GRAPH = {m: sorted(set(_imported(m, p))) for m, p in MODULES.items()}


def _layer(module: str) -> str | None:
    prefix = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len, default=None)
    return None if prefix is None else LAYERS[prefix]


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module."""
    return [sorted(c) for c in components(GRAPH, GRAPH.__getitem__) if len(c) > 1]


def test_the_graph_reads_the_imports_inside_functions_too() -> None:
    assert len(MODULES) > 100 and "autoswitch.conformance.engines.config" in MODULES
    assert "autoswitch.conformance.engines.impl" in GRAPH["autoswitch.conformance.engines"]  # make_engine's, in a function
    assert "autoswitch.reference.state" in GRAPH["autoswitch.reference.designs"]  # a relative import


def test_no_import_cycle_between_modules() -> None:
    cycles = _cycles()
    assert not cycles, "import cycles: " + "; ".join(
        " <-> ".join(c) + " (" + ", ".join(f"{m} imports {', '.join(n for n in GRAPH[m] if n in c)}" for m in c) + ")"
        for c in cycles)


def test_every_module_has_a_layer() -> None:
    assert [m for m in MODULES if _layer(m) is None] == [], "add the module's package to LAYERS"


def test_a_module_imports_only_its_layer_and_those_below() -> None:
    rank = {layer: i for i, layer in enumerate(ORDER)}
    upward = [f"{m} ({_layer(m)}) imports {n} ({_layer(n)})" for m, imported in GRAPH.items() for n in imported
              if (a := _layer(m)) and (b := _layer(n)) and rank[b] > rank[a]]
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_the_reference_and_the_implementation_do_not_import_each_other() -> None:
    crossing = [f"{m} imports {n}" for m, imported in GRAPH.items() for n in imported
                for a, b in APART if m.startswith(a) and n.startswith(b)]
    assert not crossing, "\n".join(crossing)
