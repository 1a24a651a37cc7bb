if not config["kenlm"]["bin_dir"]:

    # One build per maximum order the models need (see kenlm_build_order).
    rule build_kenlm:
        output:
            lmplz=f"resources/kenlm/kenlm-{KENLM_VERSION}-maxorder{{max_order}}/bin/lmplz",
            query=f"resources/kenlm/kenlm-{KENLM_VERSION}-maxorder{{max_order}}/bin/query",
            build_binary=f"resources/kenlm/kenlm-{KENLM_VERSION}-maxorder{{max_order}}/bin/build_binary",
        log:
            "logs/build_kenlm/maxorder{max_order}.log",
        benchmark:
            "results/benchmarks/build_kenlm/maxorder{max_order}.tsv"
        conda:
            "../../envs/kenlm-build.yaml"
        # make -j2; cmake's configure and the links run on one.
        threads: 2
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            code=script_code("build_kenlm"),
            version=KENLM_VERSION,
            sha256=KENLM_SHA256,
        script:
            "../scripts/build_kenlm.py"

else:

    localrules:
        kenlm_tools,

    # The user's own tools exist, run and are built for an order, checked before the first
    # model of that order trains (one check per order: adding an order checks it alone). Its
    # record (their sha256 and maximum order) is what the log of a run keeps of them, and what
    # the models depend on: a checkpoint, as split_fingerprint is, so that the same tools
    # elsewhere (kenlm.bin_dir retyped, a folder of links) train and score nothing again.
    checkpoint kenlm_tools:
        input:
            lambda wildcards: user_tools(),
        output:
            record="results/kenlm/checked/order{order}.json",
        log:
            "logs/kenlm_tools/order{order}.log",
        conda:
            "../../envs/python.yaml"
        params:
            code=script_code("kenlm_tools"),
            bin_dir=config["kenlm"]["bin_dir"],
        message:
            "Check the tools of kenlm.bin_dir for order {wildcards.order} ({output.record}). If they "
            "are the bytes they were, every job this plan lists after it that they train or score "
            "with finds nothing to do and does not run."
        script:
            "../scripts/kenlm_tools.py"


# The kenlm module for models above the .venv module's maximum order, built for theirs.
rule build_kenlm_python:
    input:
        checked=python_module_checks,
    output:
        module=directory(f"resources/kenlm/kenlm-{KENLM_VERSION}-maxorder{{max_order}}/python"),
    log:
        "logs/build_kenlm_python/maxorder{max_order}.log",
    conda:
        "../../envs/kenlm-build.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        code=script_code("build_kenlm_python"),
        version=KENLM_VERSION,
        sha256=KENLM_SHA256,
    script:
        "../scripts/build_kenlm_python.py"
