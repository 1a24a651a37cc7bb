"""Build KenLM's lmplz, query and build_binary from its source distribution on PyPI."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from ..atomic import atomic_path, write_json
from ..files import sha256 as file_sha256
from ..errors import LmgapError

TOOLS = ("lmplz", "query", "build_binary")
# The maximum order of the kenlm Python module the set-up installs (its setup.py's default).
PYTHON_MODULE_MAX_ORDER = 6
MISSING_HELP = (
    "KenLM cannot be built: {what}. On Debian or Ubuntu install the build prerequisites with\n"
    "    sudo apt-get install cmake g++ make libboost-program-options-dev libboost-system-dev "
    "libboost-thread-dev libboost-test-dev zlib1g-dev libbz2-dev liblzma-dev\n"
    "or set kenlm.bin_dir to a folder holding lmplz, query and build_binary."
)


def pinned_kenlm(requirements):
    """(version, sha256) of the `kenlm==V --hash=sha256:H` line of a requirements file."""
    match = re.search(r"^\s*kenlm==(\S+) --hash=sha256:([0-9a-f]{64})\s*$", Path(requirements).read_text(), re.M)
    if not match:
        raise LmgapError(f"{requirements} pins no kenlm==VERSION --hash=sha256:HASH line")
    return match.groups()


def _run(cmd, log, what, cwd=None, env=None):
    log.flush()
    done = subprocess.run(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env)
    if done.returncode:
        raise LmgapError(f"{what} failed (exit {done.returncode}); see {log.name}")


def _pinned_pip(version, sha256, folder, *options):
    """pip's command line (options: its subcommand, then its options) for kenlm==version's source
    distribution, refusing any other sha256 (the requirements file saying so written into folder)."""
    requirements = Path(folder) / "requirements.txt"
    requirements.write_text(f"kenlm=={version} --hash=sha256:{sha256}\n")
    pinned = ["--no-deps", "--no-binary", "kenlm", "--no-build-isolation", "--require-hashes", "-r", str(requirements)]
    return [sys.executable, "-m", "pip", options[0], *pinned, *options[1:]]


def download_sdist(version, sha256, dest, log):
    """Download kenlm==version with pip, refusing any file whose sha256 differs."""
    command = _pinned_pip(version, sha256, dest, "download", "-d", str(dest))
    _run(command, log, f"pip download kenlm=={version} (pinned sha256 {sha256})")
    return Path(dest) / f"kenlm-{version}.tar.gz"


def configure_and_make(source, build, max_order, threads, log):
    """cmake and make the three tools; name the missing packages when cmake fails."""
    for tool in ("cmake", "make", "g++"):
        if shutil.which(tool) is None:
            raise LmgapError(MISSING_HELP.format(what=f"{tool} is not installed"))
    build.mkdir(parents=True, exist_ok=True)
    log.flush()
    configure = subprocess.run(
        ["cmake", str(source), f"-DKENLM_MAX_ORDER={max_order}", "-DCMAKE_BUILD_TYPE=Release"],
        cwd=build,
        stdout=log,
        stderr=subprocess.PIPE,
        text=True,
    )
    log.write(configure.stderr)
    if configure.returncode:
        lacking = [lib for lib in ("Boost", "ZLIB", "BZip2", "LibLZMA") if lib in configure.stderr]
        if lacking:
            raise LmgapError(MISSING_HELP.format(what="cmake could not find " + ", ".join(lacking)))
        raise LmgapError(f"cmake could not configure KenLM; see {log.name}")
    _run(["make", f"-j{threads}", *TOOLS], log, "compiling KenLM", cwd=build)


def build_kenlm(pin, max_order, outputs, threads, log):
    """Download KenLM's source (pin: its version and sha256), verify and compile it; install each tool
    at its output (outputs: lmplz, query, build_binary) atomically."""
    bin_dir = Path(outputs.lmplz).parent
    bin_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kenlm-build-", dir=bin_dir.parent) as work:
        work = Path(work).resolve()
        sdist = download_sdist(pin.version, pin.sha256, work, log)
        with tarfile.open(sdist) as archive:
            archive.extractall(work, filter="data")
        configure_and_make(work / f"kenlm-{pin.version}", work / "build", max_order, threads, log)
        for tool in TOOLS:
            with atomic_path(getattr(outputs, tool)) as tmp:
                shutil.copy2(work / "build" / "bin" / tool, tmp)


def record_user_tools(bin_dir, orders, record_path):
    """Check that the user's tools are there and support every configured order; record their sha256
    and the maximum order they were compiled with."""
    paths = {tool: Path(bin_dir) / tool for tool in TOOLS}
    for tool, path in paths.items():
        if not os.access(path, os.X_OK):
            raise LmgapError(
                f"kenlm.bin_dir is {bin_dir} but {path} is not an executable; "
                "fix kenlm.bin_dir or remove it to let the pipeline build KenLM"
            )
    limit = compiled_max_order(paths["query"])
    too_high = [order for order in orders if order > limit]
    if too_high:
        raise LmgapError(
            f"the KenLM in kenlm.bin_dir ({bin_dir}) was compiled with maximum order {limit}, "
            f"but orders asks for {too_high}; remove kenlm.bin_dir to let the pipeline build "
            "KenLM with a large enough KENLM_MAX_ORDER, or lower the orders"
        )
    write_json({"sha256": {tool: file_sha256(path) for tool, path in paths.items()}, "max_order": limit}, record_path)


def compiled_max_order(query):
    """The KENLM_MAX_ORDER a query binary was built with, from its usage message."""
    done = subprocess.run([str(query)], capture_output=True, text=True)
    for line in (done.stdout + done.stderr).splitlines():
        if line.startswith("KenLM was compiled with maximum order"):
            return int(line.rstrip(".").rsplit(" ", 1)[1])
    # (Run without arguments, KenLM's query prints its usage and exits 1; a signal is a crash.)
    crashed = f" (it crashed: {signal.Signals(-done.returncode).name})" if done.returncode < 0 else ""
    raise LmgapError(
        f"{query} did not say its maximum order{crashed}; is it KenLM's query? Fix kenlm.bin_dir, or remove it to "
        "let the pipeline build KenLM"
    )


def build_python_module(pin, max_order, target, log):
    """Install the kenlm Python module compiled for max_order into target, from the sdist pinned (pin: version,
    sha256), never a cached wheel (it may be another order's), and check that it loads a model of max_order."""
    with atomic_path(target) as tmp, tempfile.TemporaryDirectory(prefix="kenlm-python-") as work:
        _run(
            _pinned_pip(pin.version, pin.sha256, work, "install", "--no-cache-dir", "--target", str(tmp)),
            log,
            f"building the kenlm Python module with maximum order {max_order}",
            env={**os.environ, "MAX_ORDER": str(max_order), "PATH": _without_cmake(work)},
        )
        arpa = Path(work) / f"order{max_order}.arpa"
        arpa.write_text(chain_arpa(max_order))
        check_module_order(tmp, arpa, max_order, log)


def _without_cmake(work):
    """A PATH whose cmake does nothing: kenlm's setup.py builds with it a library its extension never
    links (python/BuildStandalone.cmake), doubling the compile; the module is the same without it."""
    folder = Path(work) / "no-cmake"
    folder.mkdir()
    (folder / "cmake").write_text("#!/bin/sh\nexit 0\n")
    (folder / "cmake").chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ.get('PATH', os.defpath)}"


def chain_arpa(order):
    """A valid ARPA model of the given order: every n-gram of one sentence, up to that order
    (so every n-gram's context and suffix is there too)."""
    words = ["<s>", *(f"w{i}" for i in range(order)), "</s>"]
    grams = {n: sorted({tuple(words[i : i + n]) for i in range(len(words) - n + 1)}) for n in range(1, order + 1)}
    grams[1] = sorted({*grams[1], ("<unk>",)})
    lines = ["", "\\data\\", *(f"ngram {n}={len(grams[n])}" for n in grams), ""]
    for n, entries in grams.items():
        lines.append(f"\\{n}-grams:")
        for gram in entries:
            prob = "-99" if gram == ("<s>",) else "-1"
            lines.append(f"{prob}\t{' '.join(gram)}" + ("\t0" if n < order else ""))
        lines.append("")
    return "\n".join([*lines, "\\end\\", ""])


def check_module_order(module_dir, arpa, order, log):
    """The kenlm module in module_dir loads an order-`order` model, in a Python of its own."""
    code = "import sys, kenlm; model = kenlm.Model(sys.argv[1]); assert model.order == int(sys.argv[2]), model.order"
    env = {**os.environ, "PYTHONPATH": str(module_dir)}
    log.flush()
    done = subprocess.run([sys.executable, "-c", code, str(arpa), str(order)], env=env, capture_output=True, text=True)
    log.write(done.stdout + done.stderr)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise LmgapError(
            f"the kenlm module built for maximum order {order} cannot load an order-{order} model ({last}); "
            f"see {log.name}. pip installed a module built for another order: a kenlm wheel from a place "
            "pip is configured to look in (PIP_FIND_LINKS, an index serving kenlm wheels); take that "
            "away and rerun, so that pip builds the module from the pinned source"
        )
