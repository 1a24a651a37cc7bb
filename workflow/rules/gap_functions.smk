# The gap task's systems, their files, and the memory and time its jobs ask for (rules in
# gap.smk).
import math

from lmgap.files import read_json
from lmgap.gap.candidates import index_memory_mb, workers_within
from lmgap.gap.systems import BASELINE, BLEND, OUT as SYSTEM_OUT, STATS, GapSystems
from lmgap.neural.files import weights_bytes
from lmgap.ngram.memory import text_mb
from lmgap.report.gap import TABLE as GAP_TABLE, timing_file

# The systems of the config, as records (lmgap.gap.systems): the n-grams trained on the whole
# training split, the neural models and the document family.
GAP_SYSTEMS = GapSystems(
    {name: MODELS[name] for name in GAP_MODELS},
    {name: entry["kind"] for name, entry in NEURAL.items()},
    GAP["document"]["enabled"],
)


def candidates_runtime(wildcards, input):
    return 10 + math.ceil(input_mb(input) / 20)


def gap_logprobs_mem_mb(wildcards, input):
    """The model (shared by the forked scorers), the candidates and a working set per scorer."""
    return loading_mem_mb(input, 300)


def check_gap_index_fits(size_mb):
    """The memory the candidate pass needs for a training text of size_mb, if the budget holds it."""
    need = index_memory_mb(max(size_mb, 1))
    if need > MEMORY_BUDGET_MB:
        raise WorkflowError(
            f"Counting the gaps' candidates in the training text ({size_mb:,.0f} MB) needs about "
            f"{need:,} MB, more than the {MEMORY_BUDGET_MB:,} MB a job may reserve. Raise "
            "memory.budget_mb, or set gap.enabled: "
            "false."
        )
    return need


def gap_index_mem_mb(wildcards, input, threads):
    """The estimate is per MB of the training text (not of the held-out list beside it), for as
    many processes as the job's threads whose pass the budget holds (the job counts the same).
    """
    size_mb = max(text_mb(input.text), 1)
    check_gap_index_fits(size_mb)
    return index_memory_mb(size_mb, workers_within(threads, MEMORY_BUDGET_MB, size_mb))


def gap_candidates_of(wildcards):
    """An n-gram prediction's candidate sets, for the share of gaps whose word is among them
    (the other systems' recall is of the words they list)."""
    if GAP_SYSTEMS.named(wildcards.system).family != "ngram":
        return []
    return expand(rules.gap_candidates.output.candidates, split=wildcards.split)


def system_models(system):
    """The n-gram models whose binaries a system's (named by its wildcard) predictions come from."""
    return GAP_SYSTEMS.models_of(GAP_SYSTEMS.named(system))


def blend_priority(system):
    """BLEND_PATH for the blend and its members, 0 for the rest."""
    return BLEND_PATH if system in {BLEND.name, *(member.name for member in GAP_SYSTEMS.members())} else 0


def blend_files(wildcards):
    """{member: {"out": its out.tsv on the split, "fit": its per-line scores on the split whose
    gap words fit the blend's weights}}: the split's own (cross-fitted), or the first scored
    split's for test-A."""
    split = wildcards.split
    fit_split = split if split in config["eval_splits"] else config["eval_splits"][0]
    return {
        member.name: {
            "out": member.out(split),
            "fit": rules.gap_evaluate.output.lines.format(system=member.name, split=fit_split),
        }
        for member in GAP_SYSTEMS.members()
    }


def blend_inputs(wildcards):
    """gap_blend's inputs: the members' out.tsv and per-line scores, from blend_files."""
    files = blend_files(wildcards).values()
    return {"outs": [f["out"] for f in files], "fit": [f["fit"] for f in files]}


def gap_table_patterns():
    """The path patterns of the files gap_table reads (see lmgap.report.gap.write_model_tables)."""
    return {
        "metrics": str(rules.gap_evaluate.output.metrics),
        "stats": STATS,
        "coverage": str(rules.gap_candidates.output.coverage),
        "weights": str(rules.gap_blend.output.weights),
        "timings": {
            "ngram": str(rules.gap_logprobs.benchmark),
            "document": str(rules.gap_document.benchmark),
            "causal": str(rules.gap_neural.benchmark),
            "masked": str(rules.gap_masked.benchmark),
        },
    }


def gap_table_inputs(wildcards):
    """gap_table's inputs: the files of gap_table_patterns() for every system and scored split."""
    files, splits, systems = gap_table_patterns(), config["eval_splits"], GAP_SYSTEMS.all()
    timings = (timing_file(s.described(), split, files["timings"]) for s in systems for split in splits)
    return {
        "metrics": [files["metrics"].format(system=s.name, split=split) for s in systems for split in splits],
        "stats": [s.stats(split) for s in systems for split in splits],
        "coverage": expand(files["coverage"], split=splits),
        "weights": expand(files["weights"], split=splits) if GAP_SYSTEMS.blend() else [],
        "timings": list(dict.fromkeys(path for path in timings if path)),
    }


def submission_outs():
    """{split: the blend's out.tsv on it} of every predicted split: what the submission holds."""
    return {split: BLEND.out(split) for split in GAP_SPLITS}


def document_line_for_rescoring():
    """{"document": the document family's both-context out.tsv} when the causal models rescore
    its words too, else nothing."""
    if not GAP_SYSTEMS.document or not GAP["document"]["neural_words"]:
        return {}
    return {"document": lambda wildcards: GAP_SYSTEMS.named("both/document").out(wildcards.split)}


def exactly(names):
    """A wildcard constraint matching these names only, and nothing if there are none."""
    return "|".join(names) if names else "(?!)"


def gap_neural_runtime(wildcards, input):
    """Minutes, for a cluster's time limit. Measured (BENCHMARKS.md): 43 ms a gap on 2 cores for
    the default small model (3.7 MB of weights) rescoring 50 words with 8 right tokens; the cost
    grows with the gaps, the words rescored and the model's size (a masked model is counted as
    rescoring 50). Three times that, and 30 minutes more; a GPU takes far less."""
    if "base" in input.keys():
        with open(input.base, "rb") as handle:
            gaps = sum(1 for _ in handle)
        # The n-gram's words, and those of the document family's it adds.
        candidates = GAP["neural_candidates"] + (GAP["document"]["neural_words"] if "document" in input.keys() else 0)
    else:
        # The manifest gives the split's lines; on a first run it may not be written yet when
        # this job is planned (it is no input, or moving the corpus would rerun the job): then
        # twice the real dev-0's 10,519 gaps.
        try:
            files = read_json(rules.corpus_manifest.output.manifest)["files"]
            gaps = files[f"{wildcards.split}/in.tsv.xz"]["lines"]
        except (OSError, KeyError, ValueError):
            gaps = 2 * 10_519
        candidates = 50
    model_mb = max(4, weights_bytes(neural_model_dir(wildcards.neural)) / 2**20)
    seconds = 3 * 0.043 * gaps * candidates / 50 * model_mb / 4
    return 30 + math.ceil(seconds / 60)
