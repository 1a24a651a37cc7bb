rule fetch_corpus:
    input:
        local_corpus_files,
    output:
        manifest="results/corpus/manifest.json",
    log:
        "logs/fetch_corpus/fetch_corpus.log",
    conda:
        "../../envs/python.yaml"
    params:
        source=config["corpus"]["source"],
        commit=config["corpus"]["commit"],
        clone_dir="resources/corpus/clone",
        root=str(corpus_root()),
        required=corpus_required_files(),
    script:
        "../scripts/fetch_corpus.py"


rule rebuild_text:
    input:
        manifest=rules.fetch_corpus.output.manifest,
    output:
        text="results/text/{split}.txt",
    log:
        "logs/rebuild_text/{split}.log",
    benchmark:
        "results/benchmarks/rebuild_text/{split}.tsv"
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=200,
        cpus=1,
    params:
        split_dir=lambda wildcards: str(corpus_root() / wildcards.split),
    script:
        "../scripts/rebuild_text.py"
