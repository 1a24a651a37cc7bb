"""Does a right-to-left n-gram pay for itself in the blend? A measurement on a finished run,
before the pipeline has such a family.

    .venv/bin/python benchmarks/reverse_ngram.py RUN --order 5 [--split dev-0]

RUN is a folder a pipeline run with the gap task finished in (benchmarks/gap.py speed keeps one).
Trains an order-n model with lmplz on the run's training text with each line's words reversed,
scores every candidate of every gap of the split from the right (the same candidate sets and
scoring code as the forward models, each gap's contexts swapped and reversed: P(w | right) times
P(left reversed | right, w)), writes its out.tsv as the n-gram family does (the same p0 table,
the run's top_k and lmplz.discount_fallback),
scores it as GEval does, and prints the blend's PerplexityHashed with and without it (fit as the
pipeline fits it: lmgap.gap.blend, cross-fitted), with the times of training and scoring.
"""

import argparse
import json
import math
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import yaml

from blend_ablation import cross_fitted_perplexity, gap_figures
from compare import REPO, kenlm_tools
from lmgap.files import read_json
from lmgap.gap.blend import member_probabilities
from lmgap.gap.candidate_sets import CandidateSets
from lmgap.gap.evaluate import evaluate
from lmgap.gap.lines import read_gaps
from lmgap.gap.predict import score_candidates
from lmgap.gap.submission import write_predictions


def reverse_text(text, reversed_text):
    """Each line's words in reverse order."""
    with open(text, "rb") as source, open(reversed_text, "wb") as out:
        for line in source:
            out.write(b" ".join(reversed(line.split())) + b"\n")


def run_settings(run):
    """The run's config.yaml over the repository's defaults: lmplz's discount_fallback and the gap's top_k."""
    defaults = yaml.safe_load((REPO / "config.yaml").read_text())
    config = yaml.safe_load((run / "config.yaml").read_text())
    fallback = {**defaults["lmplz"], **config.get("lmplz", {})}["discount_fallback"]
    return config, fallback, {**defaults["gap"], **config.get("gap", {})}["top_k"]


def train(bin_dir, text, order, binary, work, fallback):
    arpa = work / "reverse.arpa"
    options = " --discount_fallback" if fallback else ""
    subprocess.run(
        f"{bin_dir / 'lmplz'} -o {order} --skip_symbols{options} -S 40% -T {work}/ < {text} > {arpa} "
        f"2> {work}/lmplz.log && {bin_dir / 'build_binary'} {arpa} {binary} > {work}/build_binary.log 2>&1",
        shell=True,
        check=True,
    )
    arpa.unlink()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--order", type=int, default=5)
    parser.add_argument("--split", default="dev-0")
    parser.add_argument("--corpus", type=Path, help="the corpus the run read (default: its config's)")
    parser.add_argument("--kenlm-bin", default=None)
    args = parser.parse_args()
    run, split = args.run, args.split
    work = run / "reverse"
    work.mkdir(exist_ok=True)
    config, fallback, top_k = run_settings(run)
    corpus = args.corpus or Path(config["corpus"]["source"])

    started = time.monotonic()
    reverse_text(run / "results/text/train.txt", work / "train.reversed.txt")
    reversed_s = time.monotonic() - started
    binary = work / f"o{args.order}.binary"
    started = time.monotonic()
    train(kenlm_tools(args.kenlm_bin), work / "train.reversed.txt", args.order, binary, work, fallback)
    train_s = time.monotonic() - started

    started = time.monotonic()
    contexts = [
        (b" ".join(reversed(right.split())), b" ".join(reversed(left.split())))
        for left, right in read_gaps(corpus / split)
    ]
    candidates = CandidateSets.load(run / f"results/gap/candidates/{split}.npz")
    scores = score_candidates(binary, contexts, candidates, 2)
    score_s = time.monotonic() - started
    coverage = read_json(run / f"results/gap/candidates/{split}.coverage.json")["coverage"]
    outputs = SimpleNamespace(out=work / "out.tsv", stats=work / "stats.json")
    write_predictions(candidates, scores, {"coverage": coverage, "variant": "both", "top_k": top_k}, outputs)
    scored = SimpleNamespace(metrics=work / "metrics.json", lines=work / "lines.tsv")
    evaluate(SimpleNamespace(out=work / "out.tsv", candidates=[]), corpus / split / "expected.tsv", None, scored)
    reverse = read_json(work / "metrics.json")["metrics"]["PerplexityHashed"]

    members = json.loads((run / f"results/gap/both/blend/{split}/weights.json").read_text())["members"]
    lines = [run / f"results/gap/metrics/{name}/{split}.lines.tsv" for name in members]
    figures = gap_figures(run, split)
    forward = f"both/o{args.order}"
    blend = cross_fitted_perplexity(member_probabilities(lines))
    with_reverse = cross_fitted_perplexity(member_probabilities([*lines, work / "lines.tsv"]))
    print(f"{run} ({split}): text reversed in {reversed_s:.1f} s, o{args.order} reversed trained in {train_s:.1f} s, ")
    print(f"its candidates scored in {score_s:.1f} s (2 processes)\n")
    print(f"| System | PerplexityHashed | / {forward} |")
    print("|---|---:|---:|")
    for label, value in (
        (forward, figures[forward]),
        (f"o{args.order} reversed", reverse),
        ("blend", blend),
        ("blend + reversed", with_reverse),
    ):
        print(f"| {label} | {value:.2f} | {value / figures[forward]:.3f} |")
    assert math.isclose(blend, figures["both/blend"], rel_tol=1e-3), (blend, figures["both/blend"])


if __name__ == "__main__":
    main()
