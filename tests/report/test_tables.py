"""The perplexity table for people: a figure a model does not define is a dash, never `nan`."""

import math

import pandas as pd

from lmgap.report.perplexity import markdown


def test_figures_undefined_when_every_word_is_unseen_show_a_dash(demo_run):
    frame = pd.read_csv(
        demo_run / "work/results/tables/perplexity.tsv", sep="\t", keep_default_na=False, na_values=[""]
    )
    shown = markdown(frame)
    assert "—" not in shown.split("Definitions")[0]
    # A model that knows no word of the split: SRILM's ppl1 and the perplexity without OOVs divide
    # by the words it knows, none.
    frame.loc[0, ["srilm_ppl1", "perplexity_excluding_oovs"]] = math.nan
    shown = markdown(frame)
    row = next(line for line in shown.splitlines() if line.startswith(f"| {frame.loc[0, 'model']} |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[3] == cells[6] == "—" and "nan" not in shown
    assert cells[2] == f"{frame.loc[0, 'perplexity_including_oovs']:.2f}"
