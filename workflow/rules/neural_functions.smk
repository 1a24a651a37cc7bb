# A neural model's training text and folder, what the tables read of it, and the memory its
# jobs ask for (rules in neural.smk).
from lmgap.models import training_text as training_text_of


def neural_training_text(wildcards):
    return training_text_of(config["train_split"], NEURAL[wildcards.neural]["train"]["train_fraction"])


# The byte-level BPE a trained model reads text with, learnt by rule train_tokenizer.
TOKENIZER = "results/neural/{neural}/tokenizer.json"


def neural_files_in(folder):
    """A neural model's files under results/FOLDER/{neural}/: the Hugging Face model folder
    (weights, config and tokenizer, which from_pretrained loads), its loss curve and its training
    record."""
    return {
        "model": directory(f"results/{folder}/{{neural}}/model"),
        "loss": f"results/{folder}/{{neural}}/loss.tsv",
        "record": f"results/{folder}/{{neural}}/training.json",
    }


def neural_model_folder(wildcards):
    """A trained model's folder, or the files of a user's saved model (a changed file rescores)."""
    folder = neural_model_dir(wildcards.neural)
    if NEURAL[wildcards.neural]["source"] == "train":
        return folder
    return sorted(str(path) for path in Path(folder).iterdir() if path.is_file())


def neural_fingerprints(wildcards):
    """The scored split's fingerprint, and the training split's for a model trained here: a job
    depends directly on each fingerprint its inputs come from, or Snakemake, looking again only
    at a checkpoint's direct dependants, may keep it planned after the training split's
    fingerprint proved unchanged."""
    if NEURAL[wildcards.neural]["source"] == "train":
        return model_and_split_fingerprints(wildcards)
    return split_fingerprint(wildcards)


def neural_model_dir(name):
    entry = NEURAL[name]
    if entry["source"] == "train":
        return rules.install_neural.output.model.format(neural=name)
    return entry["path"]


def neural_records():
    """Training records of the neural models the pipeline trains."""
    return expand(rules.install_neural.output.record, neural=NEURAL_TRAINED)


def neural_settings():
    """What the tables know of each causal neural model beyond its records (see
    lmgap.report.perplexity.load_metrics)."""
    return {
        name: {
            "folder": neural_model_dir(name),
            "trained": entry["source"] == "train",
            "train_fraction": (entry["train"]["train_fraction"] if entry["source"] == "train" else None),
        }
        for name, entry in NEURAL.items()
        if entry["kind"] == "causal"
    }


def neural_train_mem_mb(wildcards, input):
    """The encoded text (2 bytes per subword token, about half a byte per byte of text, held
    twice while it is joined), the model, its gradients and AdamW's moments, and PyTorch.
    """
    return loading_mem_mb(input, 1500)


def neural_score_mem_mb(wildcards, input):
    """The model, and a batch of windows' logits (4 bytes per vocabulary entry and position)."""
    entry = NEURAL[wildcards.neural]
    logits_mb = 3 * 4 * entry["vocab_size"] * entry["max_length"] * entry["batch_size"] // 2**20
    return loading_mem_mb(input, 1000 + logits_mb)


# What a neural model is trained from and with: the inputs and settings of rule train_neural,
# which install_neural repeats (see install_model).
NEURAL_SOURCES = {"text": neural_training_text, "tokenizer": TOKENIZER, "fingerprint": train_fingerprint}
NEURAL_SETTINGS = {"settings": lambda wildcards: NEURAL[wildcards.neural]["train"]}
