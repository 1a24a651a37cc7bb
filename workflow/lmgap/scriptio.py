"""What every `script:` entry point shares: the log, and errors shown to the user."""

import sys
import traceback

from .atomic import move_into_place
from .corpus.place import corpus_root
from .errors import LmgapError, in_origin

# What `neural:` needs in the environment its jobs run in, and how to install it.
NEURAL_MODULES = ("torch", "transformers", "tokenizers")
NEURAL_INSTALL = "make setup-neural (or .venv/bin/pip install -e '.[neural]')"


def run(snakemake, main):
    """Call main(log) with the job's log open; show LmgapError messages on the console too."""
    console = sys.stderr
    with open(snakemake.log[0], "w") as log:
        sys.stderr = log
        try:
            try:
                main(log)
            except ModuleNotFoundError as err:
                if err.name not in NEURAL_MODULES:
                    raise
                raise LmgapError(
                    f"{err.name} is not installed (make run leaves the neural models' packages out), "
                    f"and neural: {in_origin('neural')} asks for a model: install them with "
                    f"{NEURAL_INSTALL}, or set neural: {{}}"
                ) from None
        except LmgapError as err:
            log.write(f"\nERROR: {err}\n")
            print(f"\nlmgap error in rule {snakemake.rule}: {err}\n", file=console)
            sys.exit(1)
        except Exception:
            traceback.print_exc(file=log)
            raise
        finally:
            sys.stderr = console


def split_dir(snakemake, split=None):
    """A split's folder in the corpus (the job's `split` wildcard unless given). It comes from the
    config, not from an input or a parameter: where the corpus lies determines no result, so
    moving it must rerun nothing."""
    return corpus_root(snakemake.config["corpus"]) / (split or snakemake.wildcards.split)


def install(snakemake, log):
    """Move each trained_NAME input of the job to its output NAME (rules install_model and
    install_neural: a model put in place once its training has written every file)."""
    move_into_place([(snakemake.input[f"trained_{name}"], path) for name, path in snakemake.output.items()], log)
