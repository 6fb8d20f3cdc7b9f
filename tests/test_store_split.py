"""The store is a package of modules (issue 25): what other code imports of it still resolves, and a
wait or limit a test patches is patched in the module whose code reads it. A constant patched on
the package (``ygoreplay.store``, a re-export) or in a module that only imports it is read by no
code: the test patching it would pass without testing what it says."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

from conftest import ROOT

STORE = "ygoreplay.store"


def _sources() -> list[Path]:
    return sorted([*(ROOT / "ygoreplay").rglob("*.py"), *(ROOT / "tests").glob("*.py"), *(ROOT / "bench").glob("*.py")])


def _store_module(path: Path, node: ast.ImportFrom) -> str | None:
    """The absolute name of the module ``node`` imports from, if it is the store or one of its modules."""
    if node.level:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1][:len(path.relative_to(ROOT).parts) - node.level])
        module = f"{package}.{node.module}" if node.module else package
    else:
        module = node.module or ""
    return module if module == STORE or module.startswith(STORE + ".") else None


def _imports() -> dict[tuple[str, str], str]:
    """``{(module, name): where}`` of every name imported from the store or its modules."""
    found = {}
    for path in _sources():
        if (ROOT / "ygoreplay" / "store") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (module := _store_module(path, node)):
                for alias in node.names:
                    found[(module, alias.name)] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def test_every_name_imported_from_the_store_resolves():
    missing = []
    for (module, name), where in sorted(_imports().items()):
        imported = importlib.import_module(module)
        if not hasattr(imported, name) and not _is_module(f"{module}.{name}"):
            missing.append(f"{where}: {module}.{name}")
    assert not missing, missing


def _is_module(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def _patches() -> list[tuple[str, str, str]]:
    """(module, name, where) of each ``monkeypatch.setattr`` of a name on the store or one of its modules."""
    patches = []
    for path in [*(ROOT / "tests").glob("*.py"), *(ROOT / "bench").glob("*.py")]:
        tree = ast.parse(path.read_text())
        aliases = {}                        # a local name -> the store's module it names
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (module := _store_module(path, node)):
                aliases.update({a.asname or a.name: f"{module}.{a.name}" for a in node.names
                                if _is_module(f"{module}.{a.name}")})
            elif isinstance(node, ast.ImportFrom) and node.module == "ygoreplay":
                aliases.update({a.asname or a.name: STORE for a in node.names if a.name == "store"})
            elif isinstance(node, ast.Import):
                aliases.update({a.asname: a.name for a in node.names if a.asname and a.name.startswith(STORE)})
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setattr"
                    and node.args):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            first = node.args[0]
            if isinstance(first, ast.Name) and first.id in aliases and len(node.args) > 1 \
                    and isinstance(node.args[1], ast.Constant):
                patches.append((aliases[first.id], node.args[1].value, where))
            elif isinstance(first, ast.Constant) and str(first.value).startswith(STORE + "."):
                module, name = str(first.value).rsplit(".", 1)
                patches.append((module, name, where))
    return patches


def test_a_name_a_test_patches_is_read_by_the_module_it_is_patched_in():
    unread = []
    for module, name, where in _patches():
        source = Path(importlib.import_module(module).__file__).read_text()
        reads = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if name not in reads:
            unread.append(f"{where}: {module}.{name} (read by no code of {module})")
    assert not unread, unread
