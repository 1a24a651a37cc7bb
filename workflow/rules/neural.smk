# Neural models (neural: in config.yaml), scored on the same rebuilt text as the n-grams and
# written in the same record (results/eval/{name}/{split}.json and .documents.tsv), so that every
# table, plot and comparison takes them as it takes the n-grams.
# Moving a trained model into place takes no time: on a cluster it runs where Snakemake was
# started.
localrules:
    install_neural,


# Byte-level BPE learnt on the text a causal model trains on.
rule train_tokenizer:
    input:
        text=neural_training_text,
        fingerprint=train_fingerprint,
    output:
        tokenizer=TOKENIZER,
    log:
        "logs/train_tokenizer/{neural}.log",
    wildcard_constraints:
        neural=exactly(CAUSAL_TRAINED),
    priority: BLEND_PATH
    conda:
        "../../envs/neural.yaml"
    resources:
        mem_mb=lambda wildcards, input: loading_mem_mb(input, 1000),
        runtime=runtime_per_100_mb,
    params:
        code=script_code("train_tokenizer"),
        vocab_size=lambda wildcards: NEURAL[wildcards.neural]["train"]["vocab_size"],
    script:
        "../scripts/train_tokenizer.py"


# Trained into results/training/neural/ and moved into place by install_neural, as an n-gram
# model is (see rule train): a training that fails costs no model.
rule train_neural:
    input:
        **NEURAL_SOURCES,
    output:
        **{name: temp(path) for name, path in neural_files_in("training/neural").items()},
    log:
        "logs/train_neural/{neural}.log",
    benchmark:
        NEURAL_BENCHMARKS["train_neural"]
    wildcard_constraints:
        neural=exactly(CAUSAL_TRAINED),
    priority: BLEND_PATH
    conda:
        "../../envs/neural.yaml"
    # PyTorch keeps every thread it is given busy; a seed gives the same model for the same number
    # of threads (PARALLEL_THREADS, common.smk).
    threads: PARALLEL_THREADS
    resources:
        mem_mb=neural_train_mem_mb,
        runtime=lambda wildcards: 30 + NEURAL[wildcards.neural]["train"]["steps"] // 10,
    params:
        **NEURAL_SETTINGS,
        code=script_code("train_neural"),
    script:
        "../scripts/train_neural.py"


# A cloze model (kind: cloze) learns the gap's word from both sides of it on the training text,
# less the held-out lines (lmgap.neural.cloze_train); into results/training/neural/ as train_neural.
rule train_cloze:
    input:
        **NEURAL_SOURCES,
    output:
        **{name: temp(path) for name, path in neural_files_in("training/neural").items()},
    log:
        "logs/train_cloze/{neural}.log",
    benchmark:
        "results/benchmarks/train_cloze/{neural}.tsv"
    wildcard_constraints:
        neural=exactly(CLOZE_TRAINED),
    priority: BLEND_PATH
    conda:
        "../../envs/neural.yaml"
    # As train_neural: a seed gives the same model for the same number of threads.
    threads: PARALLEL_THREADS
    resources:
        mem_mb=cloze_train_mem_mb,
        runtime=lambda wildcards: 30 + NEURAL[wildcards.neural]["train"]["steps"] // 100,
    params:
        **NEURAL_SETTINGS,
        code=script_code("train_cloze"),
    script:
        "../scripts/train_cloze.py"


rule install_neural:
    input:
        **NEURAL_SOURCES,
        # As plain paths: directory() flags outputs only.
        **{f"trained_{name}": str(path) for name, path in neural_files_in("training/neural").items()},
    output:
        **neural_files_in("neural"),
    log:
        "logs/install_neural/{neural}.log",
    conda:
        "../../envs/python.yaml"
    params:
        **NEURAL_SETTINGS,
        code=script_code("install_neural"),
        train_code=lambda wildcards: TRAINING_CODE[NEURAL[wildcards.neural]["kind"]],
    script:
        "../scripts/install_neural.py"


rule score_neural:
    input:
        model=neural_model_folder,
        text=rules.rebuild_text.output.text,
        fingerprint=neural_fingerprints,
    output:
        **NEURAL_SCORES,
    log:
        "logs/score_neural/{neural}/{split}.log",
    benchmark:
        NEURAL_BENCHMARKS["score_neural"]
    conda:
        "../../envs/neural.yaml"
    threads: PARALLEL_THREADS
    resources:
        mem_mb=neural_score_mem_mb,
        runtime=lambda wildcards, input: 30 + math.ceil(input_mb(input)),
    params:
        code=script_code("score_neural"),
        window=lambda wildcards: {key: NEURAL[wildcards.neural][key] for key in ("max_length", "stride", "batch_size")},
    script:
        "../scripts/score_neural.py"
