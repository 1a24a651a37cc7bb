"""The blend with and without each member, on finished runs: where the blend goes next.

    .venv/bin/python benchmarks/blend_ablation.py RUN [RUN ...] [--split dev-0]

RUN is a folder a pipeline run with the gap task finished in (benchmarks/gap.py speed keeps
one). For the blend's members as the run's weights record names them, and for every set of
them less one, the blend is fit as the pipeline fits it (lmgap.gap.blend: EM with its prior,
cross-fitted in its folds) on each member's hashed probability of each gap word
(gap_evaluate's lines.tsv), and its PerplexityHashed is exp of the mean negative log of the
mixture: GEval's figure of the blend's out.tsv, since the mixture of the members' lines puts
the same mixture in every bucket (the first row, all members, is checked against the run's own
gap.tsv). Prints one Markdown table per run, with each set's figure against the 5-gram's line
(or the highest order the run has), and, where the run has neural or cloze members, the blend
without them all.
"""

import argparse
import csv
import json
import math
from pathlib import Path

import numpy as np

from lmgap.gap.blend import cross_fitted_weights, member_probabilities


def cross_fitted_perplexity(probabilities):
    """PerplexityHashed of the cross-fitted blend of these members (gaps x members)."""
    per_line, _ = cross_fitted_weights(probabilities)
    mixture = np.maximum((per_line * probabilities).sum(axis=1), 1e-300)
    return math.exp(-float(np.mean(np.log(mixture))))


def plain_members(members):
    """The indices of the members that are n-grams, the document family or the baseline."""
    return [i for i, name in enumerate(members) if name.startswith("both/o") or name in ("both/document", "unigram")]


def gap_figures(run, split):
    """{system name: PerplexityHashed} of the run's gap.tsv on the split."""
    with open(run / "results/tables/gap.tsv", newline="") as handle:
        rows = [row for row in csv.DictReader(handle, delimiter="\t") if row["split"] == split]
    names = {"baseline": lambda row: "unigram", "blend": lambda row: "both/blend"}
    return {
        names.get(row["family"], lambda row: f"{row['context']}/{row['model']}")(row): float(row["perplexity_hashed"])
        for row in rows
    }


def ablation(run, split):
    members = json.loads((run / f"results/gap/both/blend/{split}/weights.json").read_text())["members"]
    lines = {name: run / f"results/gap/metrics/{name}/{split}.lines.tsv" for name in members}
    probabilities = member_probabilities([lines[name] for name in members])
    figures = gap_figures(run, split)
    ngrams = sorted((name for name in members if name.startswith("both/o")), key=lambda n: int(n[6:].split("-")[0]))
    reference = ngrams[-1]
    rows = [("all members", cross_fitted_perplexity(probabilities))]
    # The listed words' probabilities are rounded to 6 digits in out.tsv.
    assert math.isclose(rows[0][1], figures["both/blend"], rel_tol=1e-4), (rows[0][1], figures["both/blend"])
    for index, name in enumerate(members):
        kept = [i for i in range(len(members)) if i != index]
        rows.append((f"without {name}", cross_fitted_perplexity(probabilities[:, kept])))
    # The blend of the n-grams, the document family and the baseline alone, where the run has others.
    plain = plain_members(members)
    if len(plain) < len(members):
        rows.append(("without the neural and cloze members", cross_fitted_perplexity(probabilities[:, plain])))
    print(f"\n{run} ({split}, {len(probabilities):,} gaps; the run's blend {figures['both/blend']:.2f})\n")
    print(f"| Blend | PerplexityHashed | / {reference} |")
    print("|---|---:|---:|")
    for label, value in rows:
        print(f"| {label} | {value:.2f} | {value / figures[reference]:.3f} |")
    print(f"| {reference} alone | {figures[reference]:.2f} | 1.000 |")
    return rows


def parsed_runs(description):
    """The arguments of a benchmark over finished runs: RUN folders and --split."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--split", default="dev-0")
    return parser.parse_args()


def main():
    args = parsed_runs(__doc__.split("\n\n")[0])
    for run in args.runs:
        ablation(run, args.split)


if __name__ == "__main__":
    main()
