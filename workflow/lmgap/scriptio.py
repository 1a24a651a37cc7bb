"""What every `script:` entry point shares: the log, errors shown to the user, and its benchmark
file's name."""

import sys
import traceback

from .corpus.place import corpus_root
from .errors import LmgapError
from .outlived import keep_if_orphaned

# Each timed rule's benchmark file, named here once: the rules declare it, and a job that outlives
# its run writes the record itself (see lmgap.outlived).
BENCHMARKS = {
    "build_kenlm": "results/benchmarks/build_kenlm/maxorder{max_order}.tsv",
    "rebuild_text": "results/benchmarks/rebuild_text/{split}.tsv",
    "train": "results/benchmarks/train/{model}.tsv",
    "query": "results/benchmarks/query/{model}/{split}.tsv",
    "train_neural": "results/benchmarks/train_neural/{neural}.tsv",
    "score_neural": "results/benchmarks/score_neural/{neural}/{split}.tsv",
    "gap_candidates": "results/benchmarks/gap_candidates/{split}.tsv",
    "gap_logprobs": "results/benchmarks/gap_logprobs/{model}/{split}.tsv",
    "gap_neural": "results/benchmarks/gap_neural/{neural}/{split}.tsv",
    "gap_masked": "results/benchmarks/gap_masked/{neural}/{split}.tsv",
}


def run(snakemake, main, outlives_its_run=False):
    """Call main(log) with the job's log open; show LmgapError messages on the console too.
    outlives_its_run: the job's outputs are complete and decided by its output paths and inputs
    alone, so that they may be kept when the run that started the job was killed (see
    lmgap.outlived)."""
    console = sys.stderr
    with open(snakemake.log[0], "w") as log:
        sys.stderr = log
        try:
            main(log)
            if outlives_its_run:
                keep_if_orphaned(snakemake, BENCHMARKS[snakemake.rule], log)
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
