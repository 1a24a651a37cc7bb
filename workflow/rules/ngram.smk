# Moving a trained model into place takes no time, and its fingerprint one read of it: on a
# cluster they run where Snakemake was started.
localrules:
    install_model,
    model_fingerprint,


# A share of the training split's documents for a learning curve, the same lines every run.
rule sample_training_text:
    input:
        text=rules.rebuild_text.output.text,
        fingerprint=split_fingerprint,
    output:
        text=FRACTION_TEXT,
        record=text_record(FRACTION_TEXT),
    log:
        "logs/sample_training_text/{split}-frac{fraction}.log",
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=500,
        runtime=runtime_per_100_mb,
    params:
        code=script_code("sample_training_text"),
        fraction=lambda wildcards: float(wildcards.fraction),
    script:
        "../scripts/sample_training_text.py"


# A model is trained into results/training/{model}/ and moved into place, results/models/{model}/,
# once every file of it is written (install_model): Snakemake deletes a job's outputs before the
# job runs, so a train job must not own the model in place, or one that fails would cost it.
# One lmplz run feeds a build_binary per format (build_binary.format), so the job's wildcard is
# the training, named as its probing model (results/training/o5-trie-q8b8/ is o5's too).
rule train:
    input:
        **MODEL_SOURCES,
    output:
        # lmplz streams the ARPA model into build_binary; a copy is kept only when asked for.
        **{name: temp(path) for name, path in trained_files().items()},
    log:
        "logs/train/{model}.log",
    benchmark:
        "results/benchmarks/train/{model}.tsv"
    wildcard_constraints:
        # A training's name never ends in a format's.
        model=r"o\d+(-(?!trie|probing)[a-z0-9.]+)*",
    # Highest orders first: they take longest, and started last they would finish alone.
    priority: lambda wildcards: model_options(wildcards)["order"]
    conda:
        "../../envs/kenlm.yaml"
    # One thread, though lmplz and build_binary keep 1.5 to 1.7 cores busy (docs/running.md says why).
    resources:
        mem_mb=train_mem_mb,
        runtime=train_runtime,
    params:
        **MODEL_SETTINGS,
        code=script_code("train"),
    script:
        "../scripts/train.py"


# The trained files moved into the model's folder. It repeats what the model is trained from and
# with, so that whatever trains a model again puts it in place again; and a train job that failed
# is run again, as its own (temporary) files are gone while this job's are due.
rule install_model:
    input:
        **MODEL_SOURCES,
        **{f"trained_{name}": path for name, path in model_files("training").items()},
    output:
        **model_files("models"),
    log:
        "logs/install_model/{model}.log",
    conda:
        "../../envs/python.yaml"
    params:
        **MODEL_SETTINGS,
        code=script_code("install_model"),
        train_code=script_code("train"),
    script:
        "../scripts/install_model.py"


# A checkpoint, as split_fingerprint is: what scores a model reads its binary by content, through
# this fingerprint (see MODEL_BINARY), so a model trained again to the same bytes (keep_arpa or
# discount_fallback turned on or off, an edit to the training code) is scored again by nothing.
checkpoint model_fingerprint:
    input:
        binary=rules.install_model.output.binary,
        fingerprint=train_fingerprint,
        tools_checked=kenlm_tools_checked,
    output:
        fingerprint=MODEL_FINGERPRINT,
    log:
        "logs/model_fingerprint/{model}.log",
    conda:
        "../../envs/python.yaml"
    params:
        code=script_code("model_fingerprint"),
    message:
        "Fingerprint {wildcards.model}'s binary ({output.fingerprint}). If it is the bytes it was, "
        "every job this plan lists after it that scores {wildcards.model} (its query, gap scores "
        "and predictions) finds nothing to do and does not run."
    script:
        "../scripts/model_fingerprint.py"


rule query:
    input:
        binary=MODEL_BINARY,
        text=rules.rebuild_text.output.text,
        query=kenlm_tool("query"),
        fingerprint=scoring_fingerprints(the_model),
    output:
        metrics="results/eval/{model}/{split}.json",
        documents="results/eval/{model}/{split}.documents.tsv",
    log:
        "logs/query/{model}/{split}.log",
    benchmark:
        "results/benchmarks/query/{model}/{split}.tsv"
    conda:
        "../../envs/kenlm.yaml"
    resources:
        # Loading a model takes about the size of its binary.
        mem_mb=lambda wildcards, input: loading_mem_mb(input, 256),
        runtime=runtime_per_100_mb,
    params:
        code=script_code("query"),
        options=folder_options,
    script:
        "../scripts/query.py"
