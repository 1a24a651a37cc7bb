from lmgap.report.documents import write_document_tables
from lmgap.scriptio import run

run(snakemake, lambda log: write_document_tables(snakemake.input, snakemake.output))
