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
