"""Data flows one way: fs -> trace -> probes -> machine.  A module imports only from its own
layer and the layers below it (the trace core from the machine only its contract), and lib
(what Linux keeps in lib/), which any layer may use; read from the sources' import
statements."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "tracefs_sim"
# each layer, and what it may import besides itself
ALLOWED = {
    "lib": set(),
    "machine": {"lib"},
    "probes": {"machine", "lib"},
    "trace": {"probes", "machine.contract", "lib"},
    "fs": {"trace", "probes", "machine.contract", "namespace", "lib"},
}


def _imports(path: Path, root: Path = PACKAGE) -> list[str]:
    """The tracefs_sim modules a source file below root imports, as dotted names below it."""
    tree = ast.parse(path.read_text(), str(path))
    package = path.relative_to(root).parent.parts
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[:len(package) - node.level + 1])
                module = ".".join(base + ([node.module] if node.module else []))
                names = [module] if node.module else [f"{module}.{a.name}".lstrip(".") for a in node.names]
            elif node.module and node.module.startswith("tracefs_sim."):
                names = [node.module[len("tracefs_sim."):]]
            else:
                continue
            out += names
        elif isinstance(node, ast.Import):
            out += [a.name[len("tracefs_sim."):] for a in node.names if a.name.startswith("tracefs_sim.")]
    return out


def _allowed(layer: str, imported: str) -> bool:
    if imported == layer or imported.startswith(layer + "."):
        return True
    return any(imported == ok or imported.startswith(ok + ".") for ok in ALLOWED[layer])


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_what_lies_below_it(layer):
    wrong = [f"{path.relative_to(PACKAGE)} imports {name}"
             for path in sorted((PACKAGE / layer).rglob("*.py"))
             for name in _imports(path) if not _allowed(layer, name)]
    assert not wrong, "\n".join(wrong)


def test_an_upward_import_is_seen(tmp_path):
    source = tmp_path / "probes" / "example.py"
    source.parent.mkdir()
    source.write_text("from ..trace.events import EventRegistry\nfrom . import insn\n")
    assert _imports(source, tmp_path) == ["trace.events", "probes.insn"]
    assert not _allowed("probes", "trace.events") and _allowed("probes", "probes.insn")
