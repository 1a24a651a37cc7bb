"""The digest of a job's code, its script and every lmgap module it reaches: a rule's parameter, so an
edit of any byte reruns the jobs it reaches, and a touch or a checkout of the same bytes none."""

import ast
import hashlib
import re
import tomllib
from functools import lru_cache
from pathlib import Path

# workflow/: the rules, the scripts and the package. Digests name files relative to it, so that
# where a checkout lies changes none of them.
WORKFLOW = Path(__file__).resolve().parent.parent
# What may be an import statement, parenthesised names and all: only these are parsed, as whole
# files' syntax trees took a tenth of a second of every snakemake start.
IMPORT_STATEMENT = re.compile(
    rb"^[ \t]*(?:import[ \t][^\n]*|from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|[^\n]*))", re.M
)
HIDDEN_IMPORT = re.compile(rb"[;:][ \t]*(?:import|from)[ \t]")


def script_code(name, workflow=WORKFLOW):
    """The digest of workflow/scripts/NAME.py and the lmgap modules it runs."""
    workflow = Path(workflow).resolve()
    return files_digest(code_files(workflow / "scripts" / f"{name}.py", workflow), workflow)


def package_code(workflow=WORKFLOW):
    """The digest of the workflow's code (its rules, scripts and lmgap modules): which code a run
    had, for its record."""
    workflow = Path(workflow).resolve()
    files = [
        *sorted((workflow / "rules").glob("*.smk")),
        *sorted((workflow / "scripts").glob("*.py")),
        *sorted((workflow / "lmgap").rglob("*.py")),
    ]
    return files_digest(files, workflow)


def lmgap_version(workflow=WORKFLOW):
    """The version pyproject.toml gives the package."""
    with open(Path(workflow).parent / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)["project"]["version"]


def code_files(script, workflow=WORKFLOW):
    """The script and every lmgap module it imports, directly or not, with the packages'
    __init__.py files that importing them runs."""
    found, pending = set(), [Path(script).resolve()]
    while pending:
        path = pending.pop()
        if path not in found:
            found.add(path)
            pending.extend(_imported(path, Path(workflow).resolve(), _stamp(path)))
    return sorted(found)


def files_digest(paths, root):
    """sha256 over each file's name (relative to root) and bytes; 16 hex digits."""
    digest = hashlib.sha256()
    for path in paths:
        path = Path(path).resolve()
        content = hashlib.sha256(path.read_bytes()).hexdigest()
        digest.update(f"{path.relative_to(root).as_posix()}\0{content}\0".encode())
    return digest.hexdigest()[:16]


def _stamp(path):
    """What the cache below knows a file's version by: a parse reads each file once, and a process
    that edits one (a test) reads it again."""
    info = path.stat()
    return info.st_mtime_ns, info.st_size


@lru_cache(maxsize=None)
def _imported(path, workflow, stamp):
    """The lmgap module files that a file imports anywhere in it (a function's late import too)."""
    module = _module_name(path, workflow)
    found = set()
    for node in _import_nodes(path):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.update(_module_files(alias.name, workflow))
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, path)
            if base is None:
                continue
            # `from lmgap.ngram import run` imports a module, `from .atomic import write_json` a name in one:
            # either way, what runs is the modules among base.name's prefixes (_module_files).
            for alias in node.names:
                found.update(_module_files(f"{base}.{alias.name}", workflow))
    return frozenset(found)


def _import_nodes(path):
    """A file's imports, from the lines that start like one (a string's line too: a rerun too many, never
    one too few); else the whole tree, as where one hides after `\\`, `;` or `:` (ruff never writes so)."""
    source = path.read_bytes()
    if b"\\\n" not in source and not HIDDEN_IMPORT.search(source):
        statements = [match.group(0).strip() for match in IMPORT_STATEMENT.finditer(source)]
        try:
            return [node for statement in statements for node in ast.parse(statement).body]
        except SyntaxError:
            pass
    return list(ast.walk(ast.parse(source, str(path))))


def _module_name(path, workflow):
    """lmgap.ngram.run for workflow/lmgap/ngram/run.py; None for a script."""
    if workflow / "lmgap" not in path.parents:
        return None
    parts = path.relative_to(workflow).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node, module, path):
    """The absolute name of what `from ... import` imports from (None for a script's relative
    import, which cannot reach lmgap)."""
    if not node.level:
        return node.module
    if module is None:
        return None
    # A module's package is its name less its last part; a package's __init__.py is the package.
    package = module.split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def _module_path(name, workflow):
    base = workflow.joinpath(*name.split("."))
    return next((path for path in (base.with_suffix(".py"), base / "__init__.py") if path.is_file()), None)


def _module_files(name, workflow):
    """The files that importing lmgap module `name` (or a name in it) runs: its own and its packages' __init__.py."""
    parts = name.split(".")
    if parts[0] != "lmgap":
        return set()
    paths = (_module_path(".".join(parts[:end]), workflow) for end in range(1, len(parts) + 1))
    return {path for path in paths if path is not None}
