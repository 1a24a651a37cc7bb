import sys
from pathlib import Path

from snakemake.utils import min_version

# The version uv.lock pins and the tests run: priorities that are functions of the
# wildcards (gap.smk, ngram.smk) need a recent 9.x.
min_version("9.27")

# The workflow's code is the package lmgap (workflow/lmgap), installed into the Python that runs
# snakemake; its scripts import it from there too.
try:
    from lmgap.configfile import check_config_file
except ModuleNotFoundError as err:
    if err.name != "lmgap":
        raise
    raise WorkflowError(
        "lmgap, this workflow's package, is not installed in the Python that runs snakemake "
        f"({sys.executable}): run `make setup` and then .venv/bin/snakemake, or `pip install -e .` "
        "in this folder into the environment whose snakemake you run."
    ) from None
from lmgap import configcheck
from lmgap.errors import LmgapError
from lmgap.preflight import given_config_files

# Snakemake's own message for a broken config.yaml names neither the file's line nor the problem;
# the line of each setting is kept for the schema's refusals (common.smk).
try:
    CONFIG_FILE_SETTINGS = configcheck.with_files(
        check_config_file("config.yaml"),
        # The files --configfile adds, checked as config.yaml is (one Snakemake cannot find, it names).
        {path: check_config_file(path) for path in given_config_files(sys.argv) if Path(path).is_file()},
    )
except LmgapError as err:
    raise WorkflowError(str(err)) from None


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/kenlm.smk"
include: "workflow/rules/corpus.smk"
include: "workflow/rules/ngram.smk"


# The neural models' rules, for a config that lists any (neural:).
if NEURAL:

    include: "workflow/rules/neural.smk"


include: "workflow/rules/tables.smk"
include: "workflow/rules/gap.smk"
include: "workflow/rules/checks.smk"


rule all:
    input:
        results_made(),
        # Their staged copies too: a table job that failed left its tables in place and its staged
        # copies gone, and Snakemake runs no job for a missing input of a job whose outputs exist.
        list(staged_copies().values()),
        # And the fetch's record, by which each run checks the corpus: a fetch that failed, or a record
        # deleted as its damage message says, would otherwise be left so by a run with nothing else due.
        rules.fetch_corpus.output.record,
        kept_results(),


# `snakemake orders=[4]`, a setting where Snakemake takes a file to make (make's way): refused as the
# jobs are planned, before any runs, with the option that gives it (no output of ours holds a `=`).
rule setting_as_target:
    input:
        lambda wildcards: configcheck.refuse_setting_as_target(wildcards.setting, wildcards.value),
    output:
        "{setting}={value}",
    log:
        "logs/setting_as_target/{setting}={value}.log",
    wildcard_constraints:
        setting=r"[A-Za-z_][A-Za-z0-9_.]*",
        value=r".*",
    localrule: True
    run:
        pass
