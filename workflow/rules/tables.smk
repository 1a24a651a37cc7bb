rule perplexity_table:
    input:
        metrics=expand(
            rules.query.output.metrics,
            model=sorted(MODELS),
            split=config["eval_splits"],
        ),
    output:
        tsv="results/tables/perplexity.tsv",
        md="results/tables/perplexity.md",
    log:
        "logs/perplexity_table/perplexity_table.log",
    conda:
        "../../envs/python.yaml"
    script:
        "../scripts/perplexity_table.py"


rule cost_table:
    input:
        lmplz=expand(rules.lmplz.benchmark, model=sorted(MODELS)),
        build_binary=expand(rules.build_binary.benchmark, model=sorted(MODELS)),
        query=expand(
            rules.query.benchmark, model=sorted(MODELS), split=config["eval_splits"]
        ),
        binary=expand(rules.build_binary.output.binary, model=sorted(MODELS)),
    output:
        tsv="results/tables/cost.tsv",
        md="results/tables/cost.md",
    log:
        "logs/cost_table/cost_table.log",
    conda:
        "../../envs/python.yaml"
    params:
        models=MODELS,
        splits=config["eval_splits"],
    script:
        "../scripts/cost_table.py"


rule record_run:
    input:
        manifest=rules.corpus_manifest.output.manifest,
        metrics=rules.perplexity_table.input.metrics,
        lmplz=kenlm_tool("lmplz"),
        query=kenlm_tool("query"),
        build_binary=kenlm_tool("build_binary"),
    output:
        provenance="results/provenance.json",
    log:
        "logs/record_run/record_run.log",
    conda:
        "../../envs/python.yaml"
    params:
        kenlm={
            "version": KENLM_VERSION,
            "sdist_sha256": KENLM_SHA256,
            "max_order": KENLM_MAX_ORDER,
            "bin_dir": config["kenlm"]["bin_dir"],
        },
        experiment={
            key: config[key]
            for key in ("corpus", "train_split", "eval_splits", "orders", "lmplz")
        },
    script:
        "../scripts/record_run.py"
