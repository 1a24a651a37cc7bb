if not config["kenlm"]["bin_dir"]:

    rule build_kenlm:
        output:
            lmplz=str(kenlm_bin_dir() / "lmplz"),
            query=str(kenlm_bin_dir() / "query"),
            build_binary=str(kenlm_bin_dir() / "build_binary"),
        log:
            f"logs/build_kenlm/maxorder{KENLM_MAX_ORDER}.log",
        benchmark:
            f"results/benchmarks/build_kenlm/maxorder{KENLM_MAX_ORDER}.tsv"
        conda:
            "../../envs/kenlm-build.yaml"
        threads: 2
        resources:
            mem_mb=2000,
            cpus=2,
        params:
            version=KENLM_VERSION,
            sha256=KENLM_SHA256,
            max_order=KENLM_MAX_ORDER,
        script:
            "../scripts/build_kenlm.py"
