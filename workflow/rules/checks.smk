# What the run a user started checks and says. Parsing only reads the config and wires the jobs:
# Snakemake parses this workflow for a dry run, a lint, a report and again inside every cluster
# job. What needs the corpus, a tool or the file system runs once in the main process, in
# onstart (a real run, before its first job), or in the job that needs the answer.
import os
import signal

from snakemake.logging import logger
from snakemake_interface_executor_plugins.settings import DeploymentMethod

from lmgap.corpus.fetch import (
    check_commit_source,
    check_files,
    check_scorable,
    read_gap_words,
    uncompressed_mb,
)
from lmgap.preflight import (
    check_neural_stack,
    check_outputs_writable,
    check_records_writable,
    check_writable,
    corpus_warnings,
    locked_folder_message,
    run_processes,
    set_aside,
    settings_changed,
    stale_tables_warning,
)

FETCH_RECORD = "results/corpus/fetched.json"
STALE_TABLES = "results/tables/stale"
PROVENANCE = "results/provenance.json"


def report_asked():
    return any(arg == "--report" or arg.startswith("--report=") for arg in sys.argv)


def report_needs_results():
    """`--report` before any run, or after the config changed and before the run: say to run
    first (Snakemake's own errors name metadata and versions)."""
    if not report_asked():
        return
    if not Path("results/tables/perplexity.tsv").exists():
        raise WorkflowError(
            "There are no results to report yet: run the pipeline first "
            "(snakemake --cores 8), then snakemake --report results/report.html."
        )
    changed = settings_changed(PROVENANCE, experiment_settings())
    if changed:
        raise WorkflowError(
            f"The results were made with other settings than these ({', '.join(changed)} "
            "differ): give --report the --config or --configfile options of the run that made "
            "them, or run the pipeline with these settings first (snakemake --cores 8 and the "
            "same options), then snakemake --report results/report.html."
        )


def locked_by_live_jobs():
    """A lock left by a run whose main process was killed while its jobs live on: Snakemake's
    message says --unlock, which would let a new run write beside them. Looked at only when the
    folder holds a lock."""
    locks = Path(".snakemake/locks")
    if not (locks.is_dir() and any(locks.iterdir())):
        return
    commands, mains = run_processes(".")
    if not commands:
        return
    unlocking = "--unlock" in sys.argv
    message = locked_folder_message(commands, mains, unlocking)
    if unlocking:
        raise WorkflowError(message)
    logger.warning(f"lmgap warning: {message}")


def config_warnings():
    """What the config asks for that is accepted but likely a mistake."""
    physical_mb = physical_memory_mb()
    if not ON_CLUSTER and MEMORY_BUDGET_MB > physical_mb:
        yield (
            f"the memory budget of {MEMORY_BUDGET_MB:,} MB ({BUDGET_FROM}) is above this machine's "
            f"{physical_mb:,} MB of memory: jobs it admits together may be killed for want "
            f"of memory; lower memory.budget_mb {in_origin('memory.budget_mb')} (or --resources mem_mb=N)"
        )
    if config["train_split"] in config["eval_splits"]:
        yield (
            f"eval_splits scores {config['train_split']}, the split the models are trained on "
            "(train_split): its perplexities say how well they fit their own text, not how they "
            "generalise"
        )
    if NEURAL_CAUSAL and GAP["enabled"] and not GAP_MODELS:
        yield (
            f"the causal neural models {', '.join(NEURAL_CAUSAL)} rescore the gap candidates of an "
            "n-gram trained on the whole training split, and train_fraction has no 1.0 "
            f"{in_origin('train_fraction')}: they predict no gaps; add 1.0 to train_fraction"
        )
    if NEURAL_MASKED and not GAP["enabled"]:
        yield (
            f"the masked models {', '.join(NEURAL_MASKED)} only predict gaps, and gap.enabled is "
            f"false {in_origin('gap.enabled')}: they do nothing; set it true, or remove them"
        )


def check_local_corpus():
    """A local corpus's files, and whether the budget holds the gap task's candidate pass (the
    training text's size is in in.tsv.xz's index), before the first job rather than after
    minutes of work. A git source is checked by the fetch job, once it has the files."""
    check_commit_source(config["corpus"]["source"], config["corpus"]["commit"])
    if not corpus_is_local():
        return
    check_files(corpus_root(), corpus_required_files())
    if GAP["enabled"]:
        train_in = corpus_root() / config["train_split"] / "in.tsv.xz"
        text_mb = uncompressed_mb(train_in)
        if text_mb is not None:
            check_gap_index_fits(text_mb)
        # Here as well as in the fingerprint jobs: a train job could start beside those.
        for split in config["eval_splits"]:
            name = f"{split}/expected.tsv"
            _, not_utf8 = read_gap_words(corpus_root() / name, name)
            record = {"root": str(corpus_root()), "source": config["corpus"]["source"]}
            check_scorable({**record, "not_utf8": {name: not_utf8}}, split)


WARNED = set()
# Snakemake answers SIGTERM by letting the running jobs finish, starting no new one and
# stopping, then says that a job did not complete: the run says why it stopped.
STOPPED_BY_SIGTERM = []


def on_sigterm(snakemake_handler):
    """A SIGTERM handler that says what will happen, then hands the signal to Snakemake's."""

    def handler(signum, frame):
        STOPPED_BY_SIGTERM.append(signum)
        # Written straight to the terminal: a signal handler must not wait on the logger's lock.
        os.write(
            2,
            b"lmgap: SIGTERM received: the jobs running now finish and keep their outputs (unless "
            b"they were sent the signal too), no new job starts, then the run stops; run the same "
            b"command again to go on.\n",
        )
        if callable(snakemake_handler):
            snakemake_handler(signum, frame)

    return handler


def warn(warnings):
    for warning in filter(None, warnings):
        if warning not in WARNED:
            logger.warning(f"lmgap warning: {warning}")
            WARNED.add(warning)


if workflow.is_main_process:
    try:
        check_records_writable()
        # A report only reads the results (and may be written elsewhere).
        if not report_asked():
            check_outputs_writable(["results", "results/tables", "logs"])
    except LmgapError as err:
        raise WorkflowError(str(err)) from None
    locked_by_live_jobs()
    report_needs_results()
    warn(config_warnings())


onstart:
    # Snakemake's scheduler has set its SIGTERM handler by now; this one goes in front of it.
    signal.signal(signal.SIGTERM, on_sigterm(signal.getsignal(signal.SIGTERM)))
    try:
        check_local_corpus()
        check_neural_stack(
            []
            if DeploymentMethod.CONDA
            in workflow.deployment_settings.deployment_method
            else sorted(NEURAL)
        )
        check_writable(["results", "results/tables", "logs"])
    except LmgapError as err:
        raise WorkflowError(str(err)) from None
    warn(corpus_warnings(FETCH_RECORD))
    # The tables folder shows what the current config makes: the gap task's tables of an earlier
    # run go aside, kept.
    if not GAP["enabled"]:
        moved = set_aside(rules.gap_table.output, STALE_TABLES)
        if moved:
            warn(
                [
                    f"gap.enabled is false: {' and '.join(moved)} of an earlier run, with the "
                    f"gap task on, moved to {STALE_TABLES}/"
                ]
            )


# A fetch of this run may have found what its start could not know yet; a run that left the
# tables behind the corpus (a target short of them) says so.
onsuccess:
    warn(corpus_warnings(FETCH_RECORD))
    warn([stale_tables_warning(PROVENANCE, "results/corpus/manifest.json")])


onerror:
    warn(corpus_warnings(FETCH_RECORD))
    if STOPPED_BY_SIGTERM:
        logger.error(
            "lmgap: the run stopped because it was sent SIGTERM, once its running jobs had "
            "finished (a job sent the signal too stops as if it failed); whatever Snakemake says "
            "below, no job failed of itself. Run the same command again to go on from there."
        )
