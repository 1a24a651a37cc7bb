rule lmplz:
    input:
        text=expand(rules.rebuild_text.output.text, split=config["train_split"]),
        lmplz=kenlm_tool("lmplz"),
    output:
        arpa=(
            "results/models/{model}/model.arpa"
            if config["keep_arpa"]
            else temp("results/models/{model}/model.arpa")
        ),
    log:
        "logs/lmplz/{model}.log",
    benchmark:
        "results/benchmarks/lmplz/{model}.tsv"
    # Highest orders first: they take longest, and started last they would finish alone.
    priority: lambda wildcards: MODELS[wildcards.model]["order"]
    conda:
        "../../envs/kenlm.yaml"
    resources:
        mem_mb=lmplz_mem_mb,
        cpus=1,
    params:
        options=model_options,
    script:
        "../scripts/lmplz.py"


rule build_binary:
    input:
        arpa=rules.lmplz.output.arpa,
        build_binary=kenlm_tool("build_binary"),
    output:
        binary="results/models/{model}/model.binary",
        counts="results/models/{model}/ngram_counts.json",
    log:
        "logs/build_binary/{model}.log",
    benchmark:
        "results/benchmarks/build_binary/{model}.tsv"
    priority: lambda wildcards: MODELS[wildcards.model]["order"]
    conda:
        "../../envs/kenlm.yaml"
    resources:
        mem_mb=model_mem_mb,
        cpus=1,
    script:
        "../scripts/build_binary.py"
