# The tables, plots and records read small files (per-model sums, per-document figures) and
# take seconds: on a cluster they run where Snakemake was started (see corpus.smk).
localrules:
    perplexity_table,
    cost_table,
    comparison_table,
    provenance,
    document_tables,
    plots,


rule perplexity_table:
    input:
        **FINGERPRINTS["perplexity_table"],
        **table_inputs("perplexity_table"),
        metrics=scored_outputs("metrics"),
        vocabulary=rules.vocabulary.output.vocabulary,
    output:
        **staged_outputs("perplexity_table"),
    log:
        "logs/perplexity_table/perplexity_table.log",
    conda:
        "../../envs/python.yaml"
    params:
        code=script_code("perplexity_table"),
        # The model (and split) of each file of each input list (lmgap.keyed); lmplz.discount_fallback,
        # a setting of every n-gram model, which its score's record leaves out (see folder_options).
        input_keys=table_keys("perplexity_table"),
        settings={"discount_fallback": config["lmplz"]["discount_fallback"], "neural": neural_settings()},
    script:
        "../scripts/perplexity_table.py"


rule cost_table:
    input:
        **FINGERPRINTS["cost_table"],
        **table_inputs("cost_table"),
        metrics=rules.perplexity_table.input.metrics,
    output:
        **staged_outputs("cost_table"),
    log:
        "logs/cost_table/cost_table.log",
    conda:
        "../../envs/python.yaml"
    params:
        code=script_code("cost_table"),
        input_keys=table_keys("cost_table"),
        settings=rules.perplexity_table.params.settings,
    script:
        "../scripts/cost_table.py"


rule comparison_table:
    input:
        **FINGERPRINTS["comparison_table"],
        **table_inputs("comparison_table"),
        table=rules.perplexity_table.output.tsv,
    output:
        **staged_outputs("comparison_table"),
    log:
        "logs/comparison_table/comparison_table.log",
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        code=script_code("comparison_table"),
        models=MODELS,
        neural=compared_neural(),
        input_keys=table_keys("comparison_table"),
        settings={"splits": config["eval_splits"], **config["comparison"]},
    script:
        "../scripts/comparison_table.py"


rule provenance:
    input:
        # The fetch's record too: a run whose fetch failed records no settings it did not run with.
        record=rules.fetch_corpus.output.record,
        manifest=rules.corpus_manifest.output.manifest,
        metrics=rules.perplexity_table.input.metrics,
        tools=list(every_kenlm_tool().values()),
        fingerprint=results_fingerprints,
    output:
        **staged_outputs("provenance"),
    log:
        "logs/provenance/provenance.log",
    conda:
        "../../envs/python.yaml"
    params:
        code=script_code("provenance"),
        kenlm={
            "version": KENLM_VERSION,
            "sdist_sha256": KENLM_SHA256,
            "max_orders": KENLM_BUILDS,
            "bin_dir": config["kenlm"]["bin_dir"],
        },
        # Which code made the results: its version and digest (the job adds the git commit).
        lmgap={"version": lmgap_version(), "code": package_code()},
        tools=list(every_kenlm_tool()),
        # What the results depend on; lmplz.temp_dir and the memory budget change no result.
        experiment=experiment_settings(),
    script:
        "../scripts/provenance.py"


rule document_tables:
    input:
        **FINGERPRINTS["document_tables"],
        documents=scored_outputs("documents"),
        years=expand(rules.document_years.output.years, split=config["eval_splits"]),
        texts=expand(rules.rebuild_text.output.text, split=config["eval_splits"]),
    output:
        **staged_outputs("document_tables"),
    log:
        "logs/document_tables/document_tables.log",
    conda:
        "../../envs/python.yaml"
    params:
        code=script_code("document_tables"),
    script:
        "../scripts/document_tables.py"


rule plots:
    input:
        **FINGERPRINTS["plots"],
        table=rules.perplexity_table.output.tsv,
        decades=rules.document_tables.output.decades_tsv,
        documents=rules.document_tables.input.documents,
        years=rules.document_tables.input.years,
        losses=expand(NEURAL_FILES["loss"], neural=kept_neural_models()),
    output:
        **staged_outputs("plots"),
    log:
        "logs/plots/plots.log",
    conda:
        "../../envs/python.yaml"
    params:
        code=script_code("plots"),
        trained=kept_neural_models(),
    script:
        "../scripts/plots.py"


# Each table and plot copied into place once the job that makes it has written every one of its
# files (see staged, common.smk), with its caption in the report.
for job, files in RESULTS.items():

    rule:
        name:
            f"install_{job}"
        input:
            **staged_outputs(job),
            **FINGERPRINTS[job],
        # update: Snakemake leaves the copy in place as the job starts (and puts it back if the job fails),
        # rather than remove it, so that no stop of the run, a kill included, leaves it missing.
        output:
            **{
                name: (
                    report_if_made(update(path), caption=f"../report/{caption}.rst", category=category)
                    if caption
                    else update(path)
                )
                for name, (path, caption, category) in files.items()
            },
        log:
            f"logs/install_{job}/install_{job}.log",
        localrule: True
        conda:
            "../../envs/python.yaml"
        params:
            **CAPTION_PARAMS[job],
            code=script_code("install_result"),
        script:
            "../scripts/install_result.py"
