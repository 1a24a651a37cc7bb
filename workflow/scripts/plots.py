from lmgap.report.plots import draw_plots
from lmgap.scriptio import run

run(snakemake, lambda log: draw_plots(snakemake.input, snakemake.params, snakemake.output))
