import sys

from lmgap.gap.predict import write_scores
from lmgap.scriptio import run, split_dir

# A kenlm Python module built for orders above the .venv's comes first (write_scores imports kenlm
# when it starts).
sys.path[:0] = list(snakemake.input.kenlm_python)

run(
    snakemake, lambda log: write_scores(snakemake.input, split_dir(snakemake), snakemake.threads, snakemake.output, log)
)
