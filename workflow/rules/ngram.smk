rule train:
    input:
        text=expand(rules.rebuild_text.output.text, split=config["train_split"]),
        lmplz=kenlm_tool("lmplz"),
        build_binary=kenlm_tool("build_binary"),
        fingerprint=train_fingerprint,
    output:
        # lmplz streams the ARPA model into build_binary; a copy is kept only when asked for.
        **({"arpa": "results/models/{model}/model.arpa"} if config["keep_arpa"] else {}),
        binary="results/models/{model}/model.binary",
        counts="results/models/{model}/ngram_counts.json",
        usage="results/models/{model}/usage.json",
    log:
        "logs/train/{model}.log",
    benchmark:
        "results/benchmarks/train/{model}.tsv"
    # Highest orders first: they take longest, and started last they would finish alone.
    priority: lambda wildcards: MODELS[wildcards.model]["order"]
    conda:
        "../../envs/kenlm.yaml"
    resources:
        mem_mb=train_mem_mb,
        cpus=1,
    params:
        options=model_options,
        kenlm=kenlm_identity(),
    script:
        "../scripts/train.py"


rule query:
    input:
        binary=rules.train.output.binary,
        text=rules.rebuild_text.output.text,
        query=kenlm_tool("query"),
        fingerprint=model_and_split_fingerprints,
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
        mem_mb=model_mem_mb,
        cpus=1,
    params:
        options=model_options,
    script:
        "../scripts/query.py"
