from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/kenlm.smk"
include: "workflow/rules/corpus.smk"
include: "workflow/rules/lm.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/gap.smk"


rule all:
    input:
        rules.perplexity_table.output,
        rules.cost_table.output,
        rules.document_tables.output,
        rules.plots.output,
        rules.record_run.output,
        rules.gap_table.output if GAP["enabled"] else [],
