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
