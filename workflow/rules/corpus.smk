rule fetch_corpus:
    input:
        local_corpus_files,
    output:
        record="results/corpus/fetched.json",
    log:
        "logs/fetch_corpus/fetch_corpus.log",
    conda:
        "../../envs/python.yaml"
    params:
        source=config["corpus"]["source"],
        commit=config["corpus"]["commit"],
        clone_dir="resources/corpus/clone",
        required=corpus_required_files(),
    script:
        "../scripts/fetch_corpus.py"


rule corpus_manifest:
    input:
        record=rules.fetch_corpus.output.record,
    output:
        manifest="results/corpus/manifest.json",
    log:
        "logs/corpus_manifest/corpus_manifest.log",
    conda:
        "../../envs/python.yaml"
    script:
        "../scripts/corpus_manifest.py"


rule rebuild_text:
    input:
        record=rules.fetch_corpus.output.record,
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


rule document_years:
    input:
        record=rules.fetch_corpus.output.record,
    output:
        years="results/text/{split}.years.tsv",
    log:
        "logs/document_years/{split}.log",
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=200,
        cpus=1,
    params:
        split_dir=lambda wildcards: str(corpus_root() / wildcards.split),
    script:
        "../scripts/document_years.py"
