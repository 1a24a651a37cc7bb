"""An n-gram's gap prediction with and without the page's words, and ways of choosing between
the two on the scored split, on finished runs: can any make no n-gram row worse for the page?

    PYTHONPATH=workflow .venv/bin/python benchmarks/page_words.py RUN [RUN ...] [--split dev-0]

RUN is a folder a pipeline run with the gap task finished in (benchmarks/gap.py speed keeps one).
For each n-gram of the run, from the candidate sets and scores the run saved, each figure GEval's
PerplexityHashed of the split's both-context lines (lmgap.gap.geval, as gap_evaluate scores):

- with: the run's own lines (the page's words among the candidates; checked against gap.tsv);
- without: the page's own words dropped, the candidates' mass measured again on the held-out
  training gaps without them (their candidate sets rebuilt here from the run's text);
- scaled: the page's own words' scores times a factor on a grid, chosen per fold;
- chosen: a * with + (1 - a) * without before the top_k are listed, a on a grid, chosen per fold;
- lines mixed: the two ways' lines mixed as the blend mixes members (EM weights), listing the
  union of their words, more than top_k.

"Per fold" is cross-fitted as the blend is (lmgap.gap.blend): each fold's lines take the value
the other folds' gaps score best. Prints one Markdown table per run.
"""

import csv
import json
import math
from pathlib import Path

import numpy as np
from blend_ablation import cross_fitted_perplexity, parsed_runs

from lmgap.gap.blend import FOLDS, cross_fitted_weights, fold_of, member_probabilities, mixed_line
from lmgap.gap.candidate_sets import CandidateSets
from lmgap.gap.candidates import build_candidates
from lmgap.gap.coverage import evidence, measure, share
from lmgap.gap.geval import read_lines, score_lines
from lmgap.gap.heldout import read_heldout
from lmgap.gap.lines import format_line, read_gaps
from lmgap.gap.sources import DOCUMENT_SOURCES, FLAG, variant_mask

PAGE = np.bitwise_or.reduce([FLAG[name] for name in DOCUMENT_SOURCES])
SCALES = (0.001, 0.01, 0.1, 0.3, 1.0)
SHARES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def without_page(candidates):
    """The candidate sets less the words only the page proposed."""
    keep = (candidates.flags & ~PAGE) != 0
    counts = np.add.reduceat(keep.astype(np.int64), candidates.offsets[:-1]) if len(keep) else np.zeros(0, int)
    counts[np.diff(candidates.offsets) == 0] = 0
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(candidates.offsets.dtype)
    return CandidateSets(candidates.words, offsets, candidates.ids[keep], candidates.flags[keep])


def heldout_tables(run, split, settings):
    """The held-out gaps' coverage tables (coverage.measure) with the page's words and without, their
    candidate sets built beside the split's, as gap_candidates builds them (ties depend on it)."""
    heldout = read_heldout(run / "results/gap/heldout.tsv")
    config = json.loads((run / "config.yaml").read_text())
    gaps = read_gaps(Path(config["corpus"]["source"]) / split)
    every = gaps + [(left, right) for _, _, left, right in heldout]
    skip = {number for number, _, _, _ in heldout}
    text = run / "results/text/train.txt"
    found = build_candidates(text, every, skip, settings["per_context"], settings["frequent"])
    found, words = found.subset(len(gaps), len(every)), [word for _, word, _, _ in heldout]
    return measure(found, words), measure(without_page(found), words)


def distributions(candidates, scores, table, scale=1.0):
    """Per gap: (candidate words' ids, probabilities) as write_predictions makes them, the page's
    own words' scores times `scale`."""
    left, right = scores
    mask = variant_mask("both")
    for gap in range(len(candidates)):
        begin, end = candidates.offsets[gap], candidates.offsets[gap + 1]
        flags = candidates.flags[begin:end]
        used = np.flatnonzero((flags & mask) != 0)
        scored = (left[begin:end][used] + right[begin:end][used]).astype(np.float64)
        scored += np.where((flags[used] & ~PAGE) != 0, 0.0, math.log10(scale))
        weights = np.power(10.0, scored - scored.max()) if len(scored) else scored
        total = weights.sum() or 1.0
        yield candidates.ids[begin:end][used], share(table, "both", evidence(flags, "both")) * weights / total


def lines_of(candidates, ways, top_k):
    words = [word.decode("utf-8") for word in candidates.words]
    lines = []
    for ids, probabilities in ways:
        mass = float(probabilities.sum())
        lines.append(format_line([words[i] for i in ids.tolist()], probabilities / (mass or 1.0), top_k, mass)[0])
    return lines


def on_ids(ids, probabilities, every):
    """probabilities of the words ids placed on the ids `every` (0 where absent)."""
    position = {word: index for index, word in enumerate(every.tolist())}
    placed = np.zeros(len(every))
    placed[[position[word] for word in ids.tolist()]] = probabilities
    return placed


def perplexity(log_probabilities):
    return math.exp(-float(np.mean(log_probabilities)))


def cross_fitted(per_value):
    """Each fold's lines from the value whose lines the other folds score best."""
    lines = len(next(iter(per_value.values())))
    folds, chosen, picked = fold_of(lines), np.empty(lines), []
    for fold in range(FOLDS):
        best = max(per_value, key=lambda value: per_value[value][folds != fold].mean())
        chosen[folds == fold] = per_value[best][folds == fold]
        picked.append(best)
    return perplexity(chosen), picked


def compare(run, split, model, expected, tables, top_k, per_line):
    """{row: PerplexityHashed} of one n-gram; per_line[model] gets the natural-log probability of each
    gap's word by the rows without and lines mixed."""
    results = run / "results/gap"
    with np.load(results / f"logprobs/{model}/{split}.npz") as saved:
        scores = saved["left"], saved["right"]
    every = CandidateSets.load(results / f"candidates/{split}.npz")
    own = without_page(every)
    kept = (every.flags & ~PAGE) != 0
    own_scores = tuple(part[kept] for part in scores)

    def scored(lines):
        return np.array(score_lines(lines, expected)[1])

    with_lines = lines_of(every, distributions(every, scores, tables[0]), top_k)
    without_lines = lines_of(own, distributions(own, own_scores, tables[1]), top_k)
    with_page, without = scored(with_lines), scored(without_lines)
    scaled = {s: scored(lines_of(every, distributions(every, scores, tables[0], s), top_k)) for s in SCALES}
    pairs = [
        (ids, p, on_ids(own_ids, q, ids))
        for (ids, p), (own_ids, q) in zip(
            distributions(every, scores, tables[0]), distributions(own, own_scores, tables[1])
        )
    ]
    shares = {a: scored(lines_of(every, ((ids, a * p + (1 - a) * q) for ids, p, q in pairs), top_k)) for a in SHARES}
    weights, _ = cross_fitted_weights(np.exp(np.stack([with_page, without], axis=1)))
    mixed_lines = [mixed_line(pair, w) for pair, w in zip(zip(with_lines, without_lines), weights)]
    mixed = scored([line for line, _, _ in mixed_lines])
    listed = float(np.mean([count for _, count, _ in mixed_lines]))
    per_line[model] = {"without": without, "lines mixed": mixed}
    return {
        "with": (perplexity(with_page), ""),
        "without": (perplexity(without), ""),
        "scaled": cross_fitted(scaled),
        "chosen": cross_fitted(shares),
        "lines mixed": (perplexity(mixed), f"{weights.mean(axis=0)[0]:.2f}, {listed:.0f} words"),
    }


def gap_rows(run, split):
    with open(run / "results/tables/gap.tsv", newline="") as handle:
        return [row for row in csv.DictReader(handle, delimiter="\t") if row["split"] == split]


def main():
    args = parsed_runs(__doc__.split("\n\n")[0])
    for run in args.runs:
        config = json.loads((run / "config.yaml").read_text())
        settings = json.loads((run / f"results/gap/candidates/{args.split}.coverage.json").read_text())
        expected = read_lines(Path(config["corpus"]["source"]) / args.split / "expected.tsv")
        tables = [{"both": table["both"]} for table in heldout_tables(run, args.split, settings)]
        assert tables[0]["both"] == settings["coverage"]["both"], "the held-out candidates differ from the run's"
        rows = [row for row in gap_rows(run, args.split) if row["family"] == "ngram" and row["context"] == "both"]
        top_k, per_line = config.get("gap", {}).get("top_k", 100), {}
        print(f"\n{run} ({args.split}, {len(expected):,} gaps)\n")
        print("| Model | with | without | scaled (per fold) | chosen (per fold) | lines mixed (weight, listed) |")
        print("|---|---:|---:|---:|---:|---:|")
        for row in rows:
            figures = compare(run, args.split, row["model"], expected, tables, top_k, per_line)
            assert math.isclose(figures["with"][0], float(row["perplexity_hashed"]), rel_tol=1e-3), row
            cells = [f"{value:.2f}" + (f" {extra}" if extra else "") for value, extra in figures.values()]
            print(f"| {row['model']} | " + " | ".join(cells) + " |")
        blends(run, args.split, per_line)


def blends(run, split, per_line):
    """The blend's PerplexityHashed, refit as the pipeline fits it, with its n-gram members' lines as
    the run has them, and replaced by each row of per_line."""
    members = json.loads((run / f"results/gap/both/blend/{split}/weights.json").read_text())["members"]
    probabilities = member_probabilities([run / f"results/gap/metrics/{name}/{split}.lines.tsv" for name in members])
    print("\n| The blend's n-gram members | PerplexityHashed |\n|---|---:|")
    print(f"| with (the run's) | {cross_fitted_perplexity(probabilities):.2f} |")
    for way in ("without", "lines mixed"):
        replaced = probabilities.copy()
        for index, name in enumerate(members):
            if name.startswith("both/") and name[5:] in per_line:
                replaced[:, index] = np.exp(per_line[name[5:]][way])
        print(f"| {way} | {cross_fitted_perplexity(replaced):.2f} |")


if __name__ == "__main__":
    main()
