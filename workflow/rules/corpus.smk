# On a cluster these run where Snakemake was started, not as jobs: the fetch may need the
# network, which compute nodes often lack, and the others read a few small files in a second,
# less than a job's queueing and start-up (tables.smk adds the tables).
localrules:
    fetch_corpus,
    split_fingerprint,
    corpus_manifest,


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
        code=script_code("fetch_corpus"),
        source=config["corpus"]["source"],
        source_given=SOURCE_GIVEN,
        commit=config["corpus"]["commit"],
        clone_dir=str(CLONE_DIR),
        required=corpus_required_files(),
    script:
        "../scripts/fetch_corpus.py"


# A checkpoint: once it has run, Snakemake looks again at the jobs that depend on it. Each
# split's text, models and scores depend on its fingerprint (the sha256 of its files), a small
# file whose content Snakemake compares, so a fetch that brings the same bytes (the corpus moved,
# another split changed or was added) rebuilds, retrains and rescores nothing.
checkpoint split_fingerprint:
    input:
        record=rules.fetch_corpus.output.record,
    output:
        fingerprint="results/corpus/splits/{split}.json",
    log:
        "logs/split_fingerprint/{split}.log",
    conda:
        "../../envs/python.yaml"
    params:
        code=script_code("split_fingerprint"),
        # The gap task's scored splits need UTF-8 gap words: refused here, before any model
        # trains (a changed setting writes the same fingerprint, which reruns nothing).
        scored_for_gaps=lambda wildcards: GAP["enabled"] and wildcards.split in config["eval_splits"],
    message:
        "Fingerprint {wildcards.split}'s files (results/corpus/splits/{wildcards.split}.json). If "
        "they are the bytes they were, every job this plan lists after it for {wildcards.split} (its "
        "text, the models trained on it, their scores and tables) finds nothing to do and does not run."
    script:
        "../scripts/split_fingerprint.py"


rule corpus_manifest:
    input:
        record=rules.fetch_corpus.output.record,
    output:
        manifest="results/corpus/manifest.json",
    log:
        "logs/corpus_manifest/corpus_manifest.log",
    conda:
        "../../envs/python.yaml"
    params:
        code=script_code("corpus_manifest"),
    script:
        "../scripts/corpus_manifest.py"


rule rebuild_text:
    input:
        fingerprint=split_fingerprint,
    output:
        text=SPLIT_TEXT,
        # Its size and digest, which every job that reads the text checks (lmgap.corpus.textrecord).
        record=text_record(SPLIT_TEXT),
    log:
        "logs/rebuild_text/{split}.log",
    benchmark:
        "results/benchmarks/rebuild_text/{split}.tsv"
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=200,
        # The real corpus's training split (836 MB of text) takes about two minutes.
        runtime=60,
    params:
        code=script_code("rebuild_text"),
    script:
        "../scripts/rebuild_text.py"


rule document_years:
    input:
        fingerprint=split_fingerprint,
    output:
        years="results/text/{split}.years.tsv",
    log:
        "logs/document_years/{split}.log",
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=200,
        runtime=30,
    params:
        code=script_code("document_years"),
    script:
        "../scripts/document_years.py"


rule vocabulary:
    input:
        train=expand(rules.rebuild_text.output.text, split=config["train_split"]),
        scored=expand(rules.rebuild_text.output.text, split=config["eval_splits"]),
        fingerprint=all_fingerprints,
    output:
        vocabulary="results/text/vocabulary.json",
    log:
        "logs/vocabulary/vocabulary.log",
    benchmark:
        "results/benchmarks/vocabulary/vocabulary.tsv"
    conda:
        "../../envs/python.yaml"
    resources:
        # A set of the word types: about 80 bytes a type, far less than the texts' size on the
        # real corpus, but about as much where most words occur once.
        mem_mb=lambda wildcards, input: loading_mem_mb(input, 200),
        runtime=runtime_per_100_mb,
    params:
        code=script_code("vocabulary"),
        splits=config["eval_splits"],
    script:
        "../scripts/vocabulary.py"
