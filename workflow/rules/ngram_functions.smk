# A model's training text, and the memory and time its train and query jobs ask for
# (rules in ngram.smk; the estimates themselves in lmgap/ngram/memory.py).
import math

from lmgap.models import FRACTION_TEXT
from lmgap.models import training_text as training_text_of
from lmgap.ngram.memory import text_mb, text_tokens, train_job_mb


def training_text(wildcards):
    return training_text_of(config["train_split"], MODELS[wildcards.model]["train_fraction"])


def folder_options(wildcards):
    """A model's options its folder's name gives (order, pruning, training fraction), for what is
    computed from the model: not lmplz.discount_fallback, a setting of the same model, so that
    turning it redoes nothing after a model trained again to the same bytes."""
    return {key: value for key, value in model_options(wildcards).items() if key != "discount_fallback"}


def model_files(folder):
    """A model's files under results/FOLDER/{model}/: its binary, n-gram counts and usage, and the
    ARPA text when keep_arpa asks for it."""
    files = ["binary", "counts", "usage", *(["arpa"] if config["keep_arpa"] else [])]
    names = {"binary": "model.binary", "counts": "ngram_counts.json", "usage": "usage.json", "arpa": "model.arpa"}
    return {name: f"results/{folder}/{{model}}/{names[name]}" for name in files}


# A model's fingerprint, the sha256 of its binary (checkpoint model_fingerprint). What scores a
# model reads the binary by content: its date is ignored (ancient), and its fingerprint, a small
# file Snakemake compares by checksum, is an input beside it.
MODEL_FINGERPRINT = "results/models/{model}/fingerprint.json"
MODEL_BINARY = ancient(model_files("models")["binary"])


def training_text_mb(input):
    """The training text's size: the estimates are per byte of text (not of the tools, also inputs)."""
    return text_mb(input.text)


def train_mem_mb(wildcards, input):
    """lmplz and build_binary run together in one job: build_binary's model, estimated from the
    text's tokens, and lmplz's -S (lmgap/ngram/memory.py)."""
    order = MODELS[wildcards.model]["order"]
    try:
        return train_job_mb(order, text_tokens(input.text), training_text_mb(input), MEMORY_BUDGET_MB)
    except LmgapError as err:
        raise WorkflowError(str(err)) from None


# Minutes a job may run, for a cluster's scheduler (which kills a job that overruns), several
# times what BENCHMARKS.md measured: a 5-gram of the real corpus (836 MB of text) trains in
# about 6 minutes and is given 52. Local runs have no limit.
def train_runtime(wildcards, input):
    return 10 + math.ceil(MODELS[wildcards.model]["order"] * training_text_mb(input) / 100)


def model_mem_mb(wildcards, input):
    """Loading a model takes about the size of its ARPA or binary file."""
    return loading_mem_mb(input, 256)


# What a model is trained from and with: the inputs and settings of rule train, which
# install_model repeats (see there).
MODEL_SOURCES = {
    "text": training_text,
    "lmplz": kenlm_tool("lmplz"),
    "build_binary": kenlm_tool("build_binary"),
    "fingerprint": train_fingerprint,
    "tools_checked": kenlm_tools_checked,
}
MODEL_SETTINGS = {"options": model_options, "kenlm": kenlm_identity()}
