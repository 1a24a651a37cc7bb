rule query:
    input:
        binary=rules.build_binary.output.binary,
        text=rules.rebuild_text.output.text,
        query=kenlm_tool("query"),
    output:
        metrics="results/eval/{model}/{split}.json",
    log:
        "logs/query/{model}/{split}.log",
    benchmark:
        "results/benchmarks/query/{model}/{split}.tsv"
    conda:
        "../../envs/kenlm.yaml"
    params:
        options=model_options,
    script:
        "../scripts/query.py"
