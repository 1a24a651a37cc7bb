"""What every `script:` entry point shares: the log, the seals of its inputs and outputs (lmgap.seals), and
errors shown to the user."""

import errno
import os
import shutil
import sys
import traceback
from pathlib import Path

from . import seals
from .atomic import atomic_path
from .commands import clear_the_way
from .corpus.place import corpus_root
from .corpus.textrecord import check_texts
from .errors import LmgapError


def kenlm_tool(snakemake, tool):
    """The path of a KenLM tool a job runs: its input (the pipeline's build), or, where the user's own are
    configured, the one in kenlm.bin_dir, which is no input (common.smk, kenlm_tool)."""
    given = snakemake.input.get(tool)
    return str(given) if given else str(Path(snakemake.config["kenlm"]["bin_dir"]) / tool)


def run(snakemake, main):
    """Call main(log) with the job's log open, its inputs held to their seals and its outputs sealed
    (lmgap.seals); show LmgapError messages on the console too."""
    console = sys.stderr
    with open(snakemake.log[0], "w") as log:
        sys.stderr = log
        try:
            try:
                check_texts(snakemake.input)
                seals.check(snakemake.input)
                seals.unseal(snakemake.output)
                # Its benchmark (where the rule has one: Snakemake gives it the run's iteration), which Snakemake
                # writes anew as the job ends, is sealed by its first reader.
                if getattr(snakemake, "bench_iteration", None) is not None:
                    seals.await_benchmark(seals.benchmark_of(snakemake.log[0]))
                main(log)
                # (With the digest of its params: what a run limited to targets left behind is told by them.)
                seals.seal(snakemake.output, dict(getattr(snakemake, "params", {}).items()))
            except OSError as err:
                in_the_way = not_a_file(err) if err.errno in (errno.EISDIR, errno.ENOTDIR, errno.EEXIST) else None
                if in_the_way:
                    raise LmgapError(in_the_way) from None
                if err.errno not in (errno.ENOSPC, errno.EDQUOT):
                    raise
                # A job that puts a table in place (update() outputs): Snakemake puts the earlier copy back, and
                # records the input it was given, so that the next run calls the job done.
                again = snakemake.rule if snakemake.rule.startswith("install_") else None
                raise LmgapError(full_disk(err, snakemake.output, again)) from None
            except ModuleNotFoundError as err:
                if err.name not in ("torch", "transformers", "tokenizers"):
                    raise
                raise LmgapError(
                    f"{err.name} is not installed (make run leaves the neural models' packages out), and the "
                    "config's neural: asks for a model: install them with make setup-neural (or .venv/bin/pip "
                    "install -e '.[neural]'), or set neural: {}"
                ) from None
        except LmgapError as err:
            log.write(f"\nERROR: {err}\n")
            print(f"\nlmgap error in rule {snakemake.rule}: {err}\n", file=console)
            sys.exit(1)
        except KeyboardInterrupt:
            # Ctrl-C stops Snakemake and its jobs alike: an interrupt, not a crash to trace.
            log.write("\nInterrupted.\n")
            sys.exit(130)
        except Exception:
            traceback.print_exc(file=log)
            raise
        finally:
            sys.stderr = console


def not_a_file(err):
    """What to do when a folder lies where a job writes a file, or a file where it makes a folder (by hand, or a
    copy of another run's): the one in the way, and its removal; None where the error names neither."""
    written = err.filename2 or err.filename
    # (A link's EEXIST names two files: no folder is made there.)
    if not written or (err.errno == errno.EEXIST and err.filename2):
        return None
    path = Path(written)
    if err.errno == errno.EISDIR and path.is_dir():
        in_the_way, kind = path, "a folder where the run keeps a file"
    else:
        # (ENOTDIR: a file among the folders above the one written; EEXIST: a folder to make is a file, as no job
        # creates a file exclusively.)
        in_the_way = next((where for where in [path, *path.parents] if where.is_file()), None)
        kind = "a file where the run makes a folder"
    if in_the_way is None:
        return None
    return (
        f"{in_the_way} is {kind}: {clear_the_way(in_the_way)}; then run the same command again (what finished is kept)"
    )


def full_disk(err, outputs, forcerun=None):
    """What to do when a job's disk filled up: the folder it was writing in (the file's, or its
    outputs' when the error names no file) and the fix: the same command again, with --forcerun of
    the job where Snakemake will not run it again by itself."""
    # A copy's error names the file read first and the one written second (shutil.copyfile, os.replace).
    written = err.filename2 or err.filename
    folders = [Path(written).parent] if written else list(dict.fromkeys(Path(path).parent for path in outputs))
    where = ", ".join(str(folder.resolve()) for folder in folders)
    return (
        f"no space left writing in {where} ({err.strerror}): free space on that disk, then run the "
        f"same command again{f' with --forcerun {forcerun}' if forcerun else ''} (what finished is kept)"
    )


def split_dir(snakemake, split=None):
    """A split's folder (the job's `split` wildcard unless given), from the config, not an input or a
    parameter: where the corpus lies determines no result, so moving it must rerun nothing."""
    return corpus_root(snakemake.config["corpus"]) / (split or snakemake.wildcards.split)


def install(snakemake, log):
    """Rename each trained_NAME input of the job to its output NAME, copying no byte (rules install_model
    and install_neural: a model put in place once its training has written every file)."""
    for name, target in snakemake.output.items():
        source = snakemake.input[f"trained_{name}"]
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, target)
        seals.unseal([source])
        log.write(f"{source} -> {target}\n")


def install_copies(snakemake, log):
    """Copy each input of the job to its output of the same name, each whole or not at all (rules
    install_*: a table or plot put in place once its job has written it; the staged copy stays, the
    output Snakemake checks its job's by)."""
    for name, target in snakemake.output.items():
        with atomic_path(target) as tmp:
            shutil.copyfile(snakemake.input[name], tmp)
        log.write(f"{snakemake.input[name]} -> {target}\n")
