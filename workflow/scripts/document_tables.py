from pathlib import Path

from lmgap.report.documents import load_all_documents, write_document_tables
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_document_tables(
        load_all_documents(snakemake.input.documents, snakemake.input.years),
        {Path(path).stem: path for path in snakemake.input.texts},
        snakemake.output,
    ),
)
