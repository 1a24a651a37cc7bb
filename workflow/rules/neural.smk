# Neural models (neural: in config.yaml), scored on the same rebuilt text as the n-grams and
# written in the same record (results/eval/{name}/{split}.json and .documents.tsv), so that every
# table, plot and comparison takes them as it takes the n-grams.
# Byte-level BPE learnt on the text the model trains on.
rule train_tokenizer:
    input:
        text=neural_training_text,
        fingerprint=train_fingerprint,
    output:
        tokenizer="results/neural/{neural}/tokenizer.json",
    log:
        "logs/train_tokenizer/{neural}.log",
    conda:
        "../../envs/neural.yaml"
    resources:
        mem_mb=lambda wildcards, input: loading_mem_mb(input, 1000),
        cpus=1,
        cpus_per_task=1,
        runtime=runtime_per_100_mb,
    params:
        code=script_code("train_tokenizer"),
        vocab_size=lambda wildcards: NEURAL[wildcards.neural]["train"]["vocab_size"],
    script:
        "../scripts/train_tokenizer.py"


rule train_neural:
    input:
        text=neural_training_text,
        tokenizer=rules.train_tokenizer.output.tokenizer,
        fingerprint=train_fingerprint,
    output:
        # A Hugging Face model folder: weights, config and tokenizer (from_pretrained loads it).
        model=directory("results/neural/{neural}/model"),
        loss="results/neural/{neural}/loss.tsv",
        record="results/neural/{neural}/training.json",
    log:
        "logs/train_neural/{neural}.log",
    benchmark:
        "results/benchmarks/train_neural/{neural}.tsv"
    conda:
        "../../envs/neural.yaml"
    # PyTorch keeps every core it is given busy: the job takes them all (a seed gives the same
    # model for the same number of threads).
    threads: CPUS
    resources:
        mem_mb=neural_train_mem_mb,
        cpus=CPUS,
        cpus_per_task=CPUS,
        runtime=lambda wildcards: 30 + NEURAL[wildcards.neural]["train"]["steps"] // 10,
    params:
        code=script_code("train_neural"),
        settings=lambda wildcards: NEURAL[wildcards.neural]["train"],
    script:
        "../scripts/train_neural.py"


rule score_neural:
    input:
        model=neural_model_folder,
        text=rules.rebuild_text.output.text,
        fingerprint=neural_fingerprints,
    output:
        metrics="results/eval/{neural}/{split}.json",
        documents="results/eval/{neural}/{split}.documents.tsv",
    log:
        "logs/score_neural/{neural}/{split}.log",
    benchmark:
        "results/benchmarks/score_neural/{neural}/{split}.tsv"
    conda:
        "../../envs/neural.yaml"
    threads: CPUS
    resources:
        mem_mb=neural_score_mem_mb,
        cpus=CPUS,
        cpus_per_task=CPUS,
        runtime=lambda wildcards, input: 30 + math.ceil(input_mb(input)),
    params:
        code=script_code("score_neural"),
        folder=lambda wildcards: neural_model_dir(wildcards.neural),
        window=lambda wildcards: {
            key: NEURAL[wildcards.neural][key]
            for key in ("max_length", "stride", "batch_size")
        },
    script:
        "../scripts/score_neural.py"
