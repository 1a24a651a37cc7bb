# What the run a user started checks and says. Parsing only reads the config and wires the jobs:
# Snakemake parses this workflow for a dry run, a lint, a report and again inside every cluster
# job. What needs the corpus, a tool or the file system runs once in the main process, in
# onstart (a real run, before its first job), or in the job that needs the answer.
from snakemake.logging import logger

from lmgap import seals
from lmgap.configcheck import defaults_taken
from lmgap.configfile import keep_copy
from lmgap.corpus.fetch import check_commit_source, check_files, check_scorable, read_gap_words, uncompressed_mb
from lmgap.gap.gonito import changed_params
from lmgap.models import fraction_label
from lmgap.preflight import (
    BEHIND,
    UNSEEN,
    behind_inputs,
    behind_settings,
    changed_settings,
    check_dates,
    check_folders,
    earlier_train_split,
    check_outputs_writable,
    check_report_folder,
    check_records_writable,
    check_texts_unchanged,
    check_writable,
    compare_installed,
    corpus_warnings,
    damaged_warnings,
    drop_superseded,
    edited_warning,
    folders_in_place,
    given_touch,
    install_staged,
    keep_edited,
    kept_split,
    killed_warning,
    not_placed_warning,
    note_unseen,
    note_kept,
    option_values,
    other_models_warning,
    planned_jobs,
    rerun_triggers_warning,
    set_aside,
    stale_tables_warning,
    train_split_warning,
    until_warning,
    unseen_changes,
    unfinished_rules,
)
from lmgap.report.comparison import model_pairs, neural_pairs
from lmgap.report.perplexity import fallback_discounts, fallback_note
from lmgap.schema import read_defaults
from lmgap.stopping import handle_in_thread, hangup_as_term
from lmgap.unused import capped_by_data, fallback_unneeded, fractions_whole, unused_settings

FETCH_RECORD = "results/corpus/fetched.json"
STALE_TABLES = "results/tables/stale"
# Where the tables, plots and submission files kept from an earlier run are listed, beside the tables.
KEPT = "results/tables/KEPT.md"
PROVENANCE = "results/provenance.json"
# Where a table, plot or submission file changed by hand is kept as a run replaces it (keep_edited).
EDITED = "results/edited"
# Snakemake's records of the runs: a sealed result without one tells a partial loss (unseen_changes).
METADATA = ".snakemake/metadata"
# Where install jobs put the tables, plots and submission in place (tables.smk).
INSTALLED_FOLDERS = ["results/tables", "results/plots", "results/submission"]


def config_warnings():
    """What the config asks for that is accepted but likely a mistake."""
    yield from defaults_taken(GIVEN, config)
    physical_mb = physical_memory_mb()
    if MEMORY_BUDGET_MB > physical_mb:
        yield (
            f"memory.budget_mb, {MEMORY_BUDGET_MB:,} MB, is above this machine's {physical_mb:,} MB of "
            "memory: a job that reserves it may be killed for want of memory; lower it (unless the "
            "jobs run on cluster nodes with more)"
        )
    if config["train_split"] in config["eval_splits"]:
        yield (
            f"eval_splits scores {config['train_split']}, the split the models are trained on "
            "(train_split): its perplexities say how well they fit their own text, not how they "
            "generalise"
        )
    # comparison.tsv's pairs, as its job finds them.
    compared = bool(model_pairs(MODELS) + neural_pairs(MODELS, compared_neural()))
    yield from unused_settings(config, read_defaults(SCHEMA), NEURAL, GAP_MODELS, compared, GIVEN)


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


def trained_counts():
    """Each model's ngram_counts.json that a run has written."""
    paths = {model: rules.install_model.output.counts.format(model=model) for model in MODELS}
    return {model: path for model, path in paths.items() if Path(path).is_file()}


def tables_of_other_models():
    """Warnings for the tables whose rows are not the config's models: left by an earlier run
    where this one stopped (or was limited to targets) before writing them again."""
    tables = {RESULTS["perplexity_table"]["tsv"][0]: [*MODELS, *NEURAL_CAUSAL]}
    if GAP["enabled"]:
        tables[RESULTS["gap_table"]["tsv"][0]] = {system.model for system in GAP_SYSTEMS.all()}
    return [other_models_warning(path, models) for path, models in tables.items() if Path(path).is_file()]


WARNED = set()


def warn(warnings):
    for warning in filter(None, warnings):
        if warning not in WARNED:
            logger.warning(f"lmgap warning: {warning}")
            WARNED.add(warning)


# At parse time, though every job's parse repeats them (a few folders' modes): Snakemake's own
# checks of its records' folder and of write-protected outputs come before onstart, with a
# traceback.
try:
    check_records_writable()
    check_folders(
        [
            *INSTALLED_FOLDERS,
            "logs",
            "results/.staged",
            str(seals.SEALS),
            EDITED,
            "results/kept",
            *seals.sealed_folders(),
        ]
    )
    check_report_folder(sys.argv)
    check_outputs_writable(["results", "logs"])
except LmgapError as err:
    raise WorkflowError(str(err)) from None


onstart:
    # First: from here on a SIGTERM stops the run and cannot hang it, and a SIGHUP stops it as one (lmgap.stopping).
    handle_in_thread()
    hangup_as_term()
    logger.info(
        f"lmgap: a job reserves at most {MEMORY_BUDGET_MB:,} MB (memory.budget_mb, else 80% of this "
        "machine's memory); what the jobs running at once may take together is --resources mem_mb"
    )
    warn(config_warnings())
    # Before this run rewrites provenance.json: the settings Snakemake, without its records, sees no change of.
    note_unseen(PROVENANCE, experiment_settings(), METADATA, UNSEEN)
    try:
        check_local_corpus()
        # Every file a job reads: the corpus, the results, KenLM's tools.
        local_corpus = [corpus_root()] if corpus_is_local() else []
        check_dates(["results", "resources", *local_corpus, *(user_tools() if config["kenlm"]["bin_dir"] else [])])
        # The tables' folder, made in any case, and the other folders results are installed in, once made.
        made = [folder for folder in INSTALLED_FOLDERS[1:] if os.path.isdir(folder)]
        check_writable(["results", "logs", INSTALLED_FOLDERS[0], *made])
        check_texts_unchanged(Path(SPLIT_TEXT).parent)
        # A staged copy changed by hand would fail its install job: refused before any job, with the
        # others the run would meet. Not one whose job this run makes again (a run killed as it wrote it left
        # it unsealed), nor, without any seal, results of earlier code: each is written again by its job
        # before it is installed.
        planned = planned_jobs(log)[0]
        remade = [staged(path) for job in RESULTS if job in planned for path, _, _ in RESULTS[job].values()]
        held = [copy for copy in staged_copies().values() if copy not in remade]
        seals.check(held, unsealed=not seals.SEALS.is_dir())
    except LmgapError as err:
        # (A setting's refusal, corpus.commit's, at its line in config.yaml.)
        raise WorkflowError(located(str(err), GIVEN, CONFIG_FILE_SETTINGS)) from None
    put_in_place()
    # A table, plot or submission file changed by hand is the user's: its install job, about to replace it, would
    # lose it.
    replaced = [path for path in config["lmgap_report"]["edited"] if set(install_jobs([path])) & set(planned)]
    for path, copy in zip(replaced, keep_edited(replaced, EDITED)):
        warn(
            [
                f"{path}: changed since the run that wrote it (by hand?); this run writes its own in its place, "
                f"and yours is kept as {copy}"
            ]
        )
    # The tables of another train_split than this run's, which it retrains every model on, are kept.
    then = earlier_train_split(PROVENANCE, experiment_settings())
    if then is not None:
        results = [path for files in RESULTS.values() for path, _, _ in files.values() if Path(path).is_file()]
        keep_edited(results, kept_split(then))
    # The config file as this run read it: a lost one is restored from it (the repository's is another experiment).
    keep_copy("config.yaml")
    warn(corpus_warnings(FETCH_RECORD, config["corpus"]["source"]))
    # The tables folder shows what the current config makes: the gap task's tables of an earlier
    # run go aside, kept.
    if not GAP["enabled"]:
        moved = set_aside([path for path, _, _ in RESULTS["gap_table"].values()], STALE_TABLES)
        if moved:
            warn(
                [
                    f"gap.enabled is false: {' and '.join(moved)} of an earlier run, with the "
                    f"gap task on, moved to {STALE_TABLES}/"
                ]
            )


# The checkpoints, past which Snakemake plans only once they have run (until_warning).
CHECKPOINTS = ("split_fingerprint", "model_fingerprint", "kenlm_tools")


def rule_outputs(names):
    """{rule: its output patterns} of those of names that are rules (--until takes files too)."""
    found = {}
    for name in names:
        try:
            found[name] = list(getattr(rules, name).output)
        except WorkflowError:
            continue
    return found


def install_jobs(paths):
    """The jobs that put these tables, plots or submission files in place."""
    return [f"install_{job}" for job, files in RESULTS.items() if any(path in paths for path, _, _ in files.values())]


# What `snakemake --report` says of the tables and plots the config makes, at the top of the report
# (workflow/report/workflow.rst): those missing, and those kept from an earlier run. Snakemake renders
# that text with the config; the key is set once the config is checked, and no job is handed it.
config["lmgap_report"] = {
    "missing": [path for path in results_made() if not Path(path).is_file()],
    "kept": sorted(kept_from_an_earlier_run()),
    **dict(zip(("edited", "uninstalled"), compare_installed(staged_copies()))),
    # The settings the config changed since the results were made (a report made before the run that follows).
    "behind": changed_settings(PROVENANCE, experiment_settings()),
}
# A table changed by hand is newer than its inputs: Snakemake has nothing to do and runs no hook, so
# the parse is where it is said (a few small files compared).
warn([edited_warning(config["lmgap_report"]["edited"]), folders_in_place(results_made())])
# Kept from an earlier run: a run given one of them as its target has nothing to do and runs no hook.
if config["lmgap_report"]["kept"]:
    # (KEPT is written as a run ends: a run killed, or a staged copy deleted by hand, left none.)
    listed = Path(KEPT).is_file() and all(path in Path(KEPT).read_text() for path in config["lmgap_report"]["kept"])
    warn(
        [
            f"{', '.join(config['lmgap_report']['kept'])}: an earlier run's, kept"
            + (
                f" (listed in {KEPT}) since the job that was to write them again failed or was stopped"
                if listed
                else " since their staged copies under results/.staged/ are gone (a run killed, or deleted by hand)"
            )
            + ": a run without targets writes them"
        ]
    )
# A newer copy a stopped run staged and never put in place: a run with work puts it in place as it starts
# (put_in_place); one with nothing to do runs no hook, and Snakemake's record may call its install job done.
if config["lmgap_report"]["uninstalled"]:
    warn(
        [
            f"{', '.join(config['lmgap_report']['uninstalled'])}: a newer copy their job made is staged and not in "
            "place (a run stopped, or failed, as it was put in place); a run with jobs to do puts it in place as it "
            "starts, and one with nothing to do does so given --forcerun "
            + " ".join(install_jobs(config["lmgap_report"]["uninstalled"]))
        ]
    )
warn(
    [
        unseen_changes(PROVENANCE, experiment_settings(), METADATA, UNSEEN),
        train_split_warning(PROVENANCE, experiment_settings()),
        rerun_triggers_warning(sys.argv, PROVENANCE, experiment_settings()),
        behind_settings(PROVENANCE, experiment_settings(), BEHIND),
    ]
)
warn([seals.gone_warning(FETCH_RECORD)])
# A record cut, emptied or added to: said at every parse, as a dry run plans the jobs as if it were whole (a stat
# of each file and a read of the seal of each newer one).
warn(damaged_warnings(INSTALLED_FOLDERS))


def put_in_place():
    """Put in place the tables, plots and submission files whose new copy their job staged and a stopped run
    left unplaced (lmgap.preflight.install_staged), and say so; return those."""
    placed, failed = install_staged(staged_copies())
    if placed:
        warn(
            [
                f"{', '.join(sorted(placed))}: put in place from the copies their job staged, which a run stopped before "
                "its job that puts them in place had run"
            ]
        )
    warn([not_placed_warning(failed, install_jobs(failed))])
    return placed


def tables_kept(log=None):
    """The tables, plots and submission files an earlier run wrote that this one was to rewrite and did
    not: named in KEPT beside them (removed once none is) and in a warning. log: a failed run's log, whose
    unfinished jobs name those whose job never started (a job it waits for failed). The staged copies of
    these, the earlier run's, are removed where the copy put in place stands: they are then kept as a failed
    job's are, and their job stays due until it has run (a next run with nothing else to do runs no hook
    that could strike them off a list)."""
    # (A copy just put in place is its job's new one, made before the job was stopped: not an earlier run's.)
    placed = put_in_place()
    unfinished = unfinished_rules(log) if log else set()
    for job in RESULTS:
        if job in unfinished:
            for path, _, _ in RESULTS[job].values():
                if Path(path).is_file() and not Path(staged(path)).is_dir() and path not in placed:
                    Path(staged(path)).unlink(missing_ok=True)
    kept = sorted(kept_from_an_earlier_run())
    try:
        note_kept(kept, KEPT)
        listed = f"listed in {KEPT}"
    except OSError as err:
        listed = f"{KEPT} could not be written: {err.strerror}"
    if kept:
        warn(
            [
                f"{', '.join(kept)}: kept from an earlier run ({listed}): the job that was to write them "
                "again failed, was stopped, or waited for a job that failed; once what stopped it is fixed, the "
                "next run writes them"
            ]
        )


def behind_params(job, paths):
    """Whether the job's params now differ from those its staged copies were made with (their seals keep a
    digest of them): a changed setting only the job reads (comparison.seed) changes none of its inputs."""
    params = dict(getattr(rules, job).params.items())
    made = seals.made_with(staged(paths[0]))
    if made is None or any(callable(value) for value in params.values()):
        return False
    return made != seals.settings_digest(params)


def behind_targets():
    """After a run limited to targets: the tables, plots and submission files the config makes whose job it left
    due, its inputs newer than what it staged (a changed setting reran the jobs of a target), or missing; the
    submission, its record of the settings it was made with (gonito.yaml's params) other than the config's
    (more orders change none of its inputs, only their set)."""
    made = set(results_made())
    submission = Path(staged(RESULTS["gap_submission"]["gonito"][0])).parent
    behind = []
    for job, files in RESULTS.items():
        paths = [path for path, _, _ in files.values() if path in made]
        inputs = [path for path in getattr(rules, job).input if isinstance(path, str)]
        stale = job == "gap_submission" and changed_params(experiment_settings(), submission)
        if paths and (stale or behind_params(job, paths) or behind_inputs([staged(path) for path in paths], inputs)):
            behind += paths
    if not behind:
        return None
    return (
        f"{', '.join(sorted(behind))}: an earlier run's, behind the files or settings they are made from, which "
        "this run, limited to its targets, did not make them again for: run the pipeline without targets to "
        "bring them up to date"
    )


# A fetch of this run may have found what its start could not know yet; a run that left the
# tables behind the corpus (a target short of them) says so.
onsuccess:
    # First: a run that stopped short of an install job (--until) staged what it made, which is then the table
    # its config makes (and not another configuration's).
    put_in_place()
    note_unseen(PROVENANCE, experiment_settings(), METADATA, UNSEEN)
    warn([unseen_changes(PROVENANCE, experiment_settings(), METADATA, UNSEEN)])
    warn(corpus_warnings(FETCH_RECORD, config["corpus"]["source"]))
    warn([stale_tables_warning(PROVENANCE, FETCH_RECORD)])
    # The gap task's tables of a run with it off, set aside, once this run has written them anew.
    if GAP["enabled"]:
        drop_superseded([path for path, _, _ in RESULTS["gap_table"].values()], STALE_TABLES)
    # Whether the run was of the whole pipeline (its log plans a job of all) or limited to targets.
    planned = planned_jobs(log)
    whole = "all" in planned[0]
    warn([behind_settings(PROVENANCE, experiment_settings(), BEHIND, whole, given_touch(log))])
    # (A run limited to targets names the tables it left behind their settings, as behind_targets.)
    warn(tables_of_other_models() if whole else [behind_targets()])
    until = option_values(sys.argv, ("--until", "-U")) or []
    warn([until_warning(until, planned, CHECKPOINTS, rule_outputs(until))])
    counts = trained_counts()
    fallbacks = fallback_discounts(counts)
    warn([fallback_note(fallbacks)])
    warn([fallback_unneeded(config["lmplz"], fallbacks, counts, MODELS)])
    samples = {
        fraction: text_record(FRACTION_TEXT.format(split=config["train_split"], fraction=fraction_label(fraction)))
        for fraction in TRAIN_FRACTIONS
        if fraction != 1
    }
    warn([fractions_whole(samples, text_record(SPLIT_TEXT.format(split=config["train_split"])))])
    if GAP["enabled"]:
        candidates = expand(rules.gap_candidates.output.candidates, split=GAP_SPLITS)
        manifest = rules.corpus_manifest.output.manifest
        given = GIVEN.get("gap") if isinstance(GIVEN.get("gap"), dict) else {}
        warn(
            capped_by_data(
                GAP, rules.vocabulary.output.vocabulary, candidates, manifest, config["train_split"], given
            )
        )
    tables_kept()


onerror:
    warn([killed_warning(log)])
    warn(corpus_warnings(FETCH_RECORD, config["corpus"]["source"]))
    tables_kept(log)
    warn(tables_of_other_models())
