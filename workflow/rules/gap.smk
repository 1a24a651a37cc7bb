# The gap table reads the scores' small files and the submission copies a few: on a cluster they
# run where Snakemake was started.
localrules:
    gap_table,
    gap_submission,


rule gap_heldout:
    input:
        fingerprint=train_fingerprint,
    output:
        heldout="results/gap/heldout.tsv",
        gap_words="results/gap/train_gap_words.tsv",
    log:
        "logs/gap_heldout/gap_heldout.log",
    priority: SCORING_FIRST
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=500,
        # It reads the training split's in.tsv.xz and expected.tsv, not an input file.
        runtime=30,
    params:
        code=script_code("gap_heldout"),
        wanted=GAP["heldout_lines"],
    script:
        "../scripts/gap_heldout.py"


rule gap_candidates:
    input:
        text=SPLIT_TEXT.format(split=config["train_split"]),
        heldout=rules.gap_heldout.output.heldout,
        fingerprint=model_and_split_fingerprints,
    output:
        candidates="results/gap/candidates/{split}.npz",
        coverage="results/gap/candidates/{split}.coverage.json",
    log:
        "logs/gap_candidates/{split}.log",
    benchmark:
        "results/benchmarks/gap_candidates/{split}.tsv"
    priority: SCORING_FIRST
    conda:
        "../../envs/python.yaml"
    # A large text is counted in spans, one process each (lmgap.gap.candidates.workers_within).
    threads: PARALLEL_THREADS
    resources:
        mem_mb=gap_index_mem_mb,
        runtime=candidates_runtime,
    params:
        code=script_code("gap_candidates"),
        per_context=GAP["candidates_per_context"],
        frequent=GAP["frequent_words"],
    script:
        "../scripts/gap_candidates.py"


rule gap_logprobs:
    input:
        binary=MODEL_BINARY,
        candidates=rules.gap_candidates.output.candidates,
        fingerprint=scoring_fingerprints(the_model),
        kenlm_python=kenlm_python_for,
    output:
        logprobs="results/gap/logprobs/{model}/{split}.npz",
    log:
        "logs/gap_logprobs/{model}/{split}.log",
    benchmark:
        "results/benchmarks/gap_logprobs/{model}/{split}.tsv"
    priority: SCORING_FIRST
    conda:
        "../../envs/gap.yaml"
    threads: PARALLEL_THREADS
    resources:
        mem_mb=gap_logprobs_mem_mb,
        runtime=runtime_per_100_mb,
    params:
        code=script_code("gap_logprobs"),
    script:
        "../scripts/gap_logprobs.py"


rule gap_predictions:
    input:
        candidates=rules.gap_candidates.output.candidates,
        coverage=rules.gap_candidates.output.coverage,
        logprobs=rules.gap_logprobs.output.logprobs,
        fingerprint=scoring_fingerprints(the_model),
    output:
        out="results/gap/{context}/{model}/{split}/out.tsv",
        stats="results/gap/stats/{context}/{model}/{split}.json",
    log:
        "logs/gap_predictions/{context}/{model}/{split}.log",
    priority: lambda wildcards: blend_priority(f"{wildcards.context}/{wildcards.model}")
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        code=script_code("gap_predictions"),
        top_k=GAP["top_k"],
    script:
        "../scripts/gap_predictions.py"


rule gap_unigram:
    input:
        heldout=rules.gap_heldout.output.heldout,
        gap_words=rules.gap_heldout.output.gap_words,
        fingerprint=model_and_split_fingerprints,
    output:
        out="results/gap/unigram/{split}/out.tsv",
        stats="results/gap/stats/unigram/{split}.json",
    log:
        "logs/gap_unigram/{split}.log",
    priority: blend_priority("unigram")
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=500,
        runtime=10,
    params:
        code=script_code("gap_unigram"),
        top_k=GAP["top_k"],
    script:
        "../scripts/gap_unigram.py"


# The document family: each gap's word from the words of its own contexts (lmgap.gap.document).
rule gap_document:
    input:
        heldout=rules.gap_heldout.output.heldout,
        gap_words=rules.gap_heldout.output.gap_words,
        fingerprint=model_and_split_fingerprints,
    output:
        out="results/gap/{context}/document/{split}/out.tsv",
        fit="results/gap/{context}/document/{split}/fit.json",
        stats="results/gap/stats/{context}/document/{split}.json",
    log:
        "logs/gap_document/{context}/{split}.log",
    benchmark:
        "results/benchmarks/gap_document/{context}/{split}.tsv"
    priority: lambda wildcards: blend_priority(f"{wildcards.context}/document")
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        code=script_code("gap_document"),
        decays=GAP["document"]["decays"],
        rarity=GAP["document"]["rarity"],
        top_k=GAP["top_k"],
    script:
        "../scripts/gap_document.py"


rule gap_evaluate:
    input:
        out=SYSTEM_OUT,
        candidates=gap_candidates_of,
        fingerprint=scoring_fingerprints(lambda wildcards: system_models(wildcards.system)),
    output:
        metrics="results/gap/metrics/{system}/{split}.json",
        lines="results/gap/metrics/{system}/{split}.lines.tsv",
    log:
        "logs/gap_evaluate/{system}/{split}.log",
    priority: lambda wildcards: blend_priority(wildcards.system)
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        code=script_code("gap_evaluate"),
        # The context whose candidate sets an n-gram's recall is counted among.
        variant=lambda wildcards: GAP_SYSTEMS.named(wildcards.system).context,
    script:
        "../scripts/gap_evaluate.py"


# A causal neural model (neural: in config.yaml) rescores the best words of the n-gram's
# prediction for each gap, and of the document family's (lmgap.neural.rescore).
rule gap_neural:
    input:
        **document_line_for_rescoring(),
        model=neural_model_folder,
        base=lambda wildcards: rules.gap_predictions.output.out.format(
            context="both", model=GAP_SYSTEMS.rescoring_base(), split=wildcards.split
        ),
        fingerprint=scoring_fingerprints(lambda wildcards: [GAP_SYSTEMS.rescoring_base()]),
    output:
        out="results/gap/both/{neural}/{split}/out.tsv",
        stats="results/gap/stats/both/{neural}/{split}.json",
    log:
        "logs/gap_neural/{neural}/{split}.log",
    benchmark:
        "results/benchmarks/gap_neural/{neural}/{split}.tsv"
    wildcard_constraints:
        neural=exactly(NEURAL_CAUSAL),
    priority: BLEND_PATH
    conda:
        "../../envs/neural.yaml"
    threads: PARALLEL_THREADS
    resources:
        # The model, and a batch's logits and cache copies (each held under 512 MB).
        mem_mb=lambda wildcards, input: loading_mem_mb(input, 2000),
        runtime=gap_neural_runtime,
    params:
        code=script_code("gap_neural"),
        max_length=lambda wildcards: NEURAL[wildcards.neural]["max_length"],
        candidates=GAP["neural_candidates"],
        document_words=GAP["document"]["neural_words"],
        right_tokens=GAP["right_tokens"],
        top_k=GAP["top_k"],
    script:
        "../scripts/gap_neural.py"


# A user's masked model (neural: with kind: masked) predicts each gap from both contexts at once
# (lmgap.neural.masked).
rule gap_masked:
    input:
        model=neural_model_folder,
        fingerprint=model_and_split_fingerprints,
    output:
        out="results/gap/both/{neural}/{split}/out.tsv",
        stats="results/gap/stats/both/{neural}/{split}.json",
    log:
        "logs/gap_masked/{neural}/{split}.log",
    benchmark:
        "results/benchmarks/gap_masked/{neural}/{split}.tsv"
    wildcard_constraints:
        neural=exactly(NEURAL_MASKED),
    priority: BLEND_PATH
    conda:
        "../../envs/neural.yaml"
    threads: PARALLEL_THREADS
    resources:
        mem_mb=neural_score_mem_mb,
        runtime=gap_neural_runtime,
    params:
        code=script_code("gap_masked"),
        max_length=lambda wildcards: NEURAL[wildcards.neural]["max_length"],
        batch_size=lambda wildcards: NEURAL[wildcards.neural]["batch_size"],
        top_k=GAP["top_k"],
    script:
        "../scripts/gap_masked.py"


# A cloze model (neural: with kind: cloze) predicts each gap's word from the words on both sides of
# it, its temperature fit on the held-out training gaps (lmgap.neural.cloze_gaps).
rule gap_cloze:
    input:
        model=neural_model_folder,
        heldout=rules.gap_heldout.output.heldout,
        fingerprint=model_and_split_fingerprints,
    output:
        out="results/gap/both/{neural}/{split}/out.tsv",
        fit="results/gap/both/{neural}/{split}/fit.json",
        stats="results/gap/stats/both/{neural}/{split}.json",
    log:
        "logs/gap_cloze/{neural}/{split}.log",
    benchmark:
        "results/benchmarks/gap_cloze/{neural}/{split}.tsv"
    wildcard_constraints:
        neural=exactly(NEURAL_CLOZE),
    priority: BLEND_PATH
    conda:
        "../../envs/neural.yaml"
    threads: PARALLEL_THREADS
    resources:
        mem_mb=cloze_gap_mem_mb,
        # BENCHMARKS.md, "The cloze family": a real-size dev-0 in 81 s on two cores.
        runtime=30,
    params:
        code=script_code("gap_cloze"),
        batch_size=lambda wildcards: NEURAL[wildcards.neural]["batch_size"],
        top_k=GAP["top_k"],
    script:
        "../scripts/gap_cloze.py"


# Every system's prediction mixed, with weights cross-fitted on the scored split's gaps
# (lmgap.gap.blend says why not on the held-out ones); the weights are written beside the out.tsv.
rule gap_blend:
    input:
        unpack(blend_inputs),
        fingerprint=scoring_fingerprints(lambda wildcards: system_models("both/blend")),
    output:
        out="results/gap/both/blend/{split}/out.tsv",
        weights="results/gap/both/blend/{split}/weights.json",
        stats="results/gap/stats/both/blend/{split}.json",
    log:
        "logs/gap_blend/{split}.log",
    priority: BLEND_PATH
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        code=script_code("gap_blend"),
        # The member of each of its out.tsv and fit files (lmgap.keyed).
        input_keys=blend_keys,
        cross_fit=lambda wildcards: wildcards.split in config["eval_splits"],
    script:
        "../scripts/gap_blend.py"


# The blend's predictions and a gonito.yaml, ready for `lmgap submit CLONE` to copy into a clone
# of the challenge (lmgap.gap.gonito); staged and installed as the tables are (tables.smk).
rule gap_submission:
    input:
        outs=list(submission_outs().values()),
        weights=expand(rules.gap_blend.output.weights, split=config["eval_splits"][0]),
        # The run's record as put in place: the one the report shows.
        provenance=rules.install_provenance.output.provenance,
    output:
        **staged_outputs("gap_submission"),
    log:
        "logs/gap_submission/gap_submission.log",
    conda:
        "../../envs/python.yaml"
    resources:
        mem_mb=500,
        runtime=10,
    params:
        code=script_code("gap_submission"),
        # The split of each out.tsv (lmgap.keyed).
        input_keys={"outs": list(submission_outs())},
    script:
        "../scripts/gap_submission.py"


rule gap_table:
    input:
        **table_inputs("gap_table"),
        **FINGERPRINTS["gap_table"],
        submissions=expand(
            SYSTEM_OUT,
            system=[
                system.name
                for system in [*GAP_SYSTEMS.members(), GAP_SYSTEMS.blend()]
                if system not in (None, BASELINE)
            ],
            split=GAP_SPLITS,
        ),
    output:
        **staged_outputs("gap_table"),
    log:
        "logs/gap_table/gap_table.log",
    conda:
        "../../envs/python.yaml"
    params:
        code=script_code("gap_table"),
        systems={system.name: system.described() for system in GAP_SYSTEMS.all()},
        # The system and split of each file of each input list (lmgap.keyed).
        input_keys=table_keys("gap_table"),
        settings={
            "splits": config["eval_splits"],
            "blend": GAP_SYSTEMS.blend() is not None,
            "base": GAP_SYSTEMS.rescoring_base(),
            "top_k": GAP["top_k"],
        },
    script:
        "../scripts/gap_table.py"
