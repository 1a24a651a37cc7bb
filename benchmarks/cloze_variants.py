"""Which cloze network, measured: variants of the cloze family trained on a finished run's text with
one step budget, each alone and in the blend of the run's members.

    .venv/bin/python benchmarks/cloze_variants.py RUN [RUN ...] --steps 1500

RUN: a folder `benchmarks/gap.py speed --neural` kept (the small causal model, both/small, among its
members; a cloze member of its own is left out).
Each variant is the pipeline's cloze model (lmgap.neural.cloze_train, lmgap.neural.cloze_gaps) with
other settings or another network: LSTMs for its GRUs, or a feed-forward network of the 8 words on
each side (a neural cloze n-gram). Each is trained on the run's training text less its held-out
lines, predicts dev-0 with its temperature fit on the held-out gaps, and is scored as GEval scores
it; the blend is fit as the pipeline fits it (lmgap.gap.blend) on the run's members without the
neural ones and with the variant, and with them all. Prints a Markdown table per run: PerplexityHashed
alone and in the blends, the training's seconds and words per second.
"""

import argparse
import json
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch
from torch import nn

from blend_ablation import cross_fitted_perplexity, plain_members
from lmgap.gap.blend import member_probabilities
from lmgap.gap.geval import score_files
from lmgap.neural import cloze_net
from lmgap.neural.cloze_gaps import ClozePredictor, load_cloze, write_cloze
from lmgap.neural.cloze_train import train_cloze

DEFAULTS = {
    "width": 256,
    "layers": 1,
    "window": 32,
    "vocab_size": 100000,
    "min_count": 2,
    "dropout": 0.3,
    "batch_size": 64,
    "learning_rate": 0.003,
    "seed": 1,
    "train_fraction": 1.0,
}


class LSTM(nn.LSTM):
    """An LSTM that answers as a GRU does: (outputs, last hidden states)."""

    def forward(self, inputs):
        outputs, (hidden, _) = super().forward(inputs)
        return outputs, hidden


class FeedForward(cloze_net.ClozeNet):
    """Each word from the SPAN words before it and after it, their vectors side by side (zeros beyond
    the window's ends)."""

    SPAN = 8

    def __init__(self, words, width, layers, dropout):
        super().__init__(words, width, layers, dropout)
        self.combine = nn.Sequential(nn.Linear(2 * self.SPAN * width, width), nn.ReLU(), nn.Dropout(dropout))

    def _around(self, embedded):
        """For each position, the SPAN vectors before it and after it, joined."""
        span = self.SPAN
        padded = nn.functional.pad(embedded, (0, 0, span, span))
        windows = padded.unfold(1, 2 * span + 1, 1)  # batch x positions x width x 2 span + 1
        sides = torch.cat([windows[..., :span], windows[..., span + 1 :]], dim=-1)
        return sides.transpose(-1, -2).flatten(2)

    def window_states(self, ids):
        return self.combine(self._around(self.drop(self.embed(ids))))[:, 1:-1]

    def gap_states(self, lefts, rights):
        span, device = self.SPAN, self.embed.weight.device
        rows = []
        for left, right in zip(lefts, rights):
            vectors = self.embed(torch.tensor([*left[-span:], 0, *right[:span]], device=device))
            before, after = vectors[: min(span, len(left))], vectors[min(span, len(left)) + 1 :]
            zeros = lambda count: torch.zeros(count, vectors.shape[1], device=device)  # noqa: E731
            rows.append(torch.cat([zeros(span - len(before)), before, after, zeros(span - len(after))]).flatten())
        return self.combine(torch.stack(rows))


# The pipeline's network and cell, which a variant replaces while it trains and predicts (cloze_train and
# cloze_gaps import ClozeNet when they run).
ORIGINAL, GRU = cloze_net.ClozeNet, nn.GRU
VARIANTS = {
    "GRU, window 32 (the default)": ({}, None),
    "GRU, window 16": ({"window": 16}, None),
    "GRU, window 64": ({"window": 64, "batch_size": 32}, None),
    "GRU, 2 layers": ({"layers": 2}, None),
    "LSTM, window 32": ({}, "lstm"),
    "feed-forward, 8 words a side": ({"window": 32}, "ffn"),
}


def trained(run, folder, settings, kind):
    """Train a variant into folder; return (training record, seconds)."""
    net = FeedForward if kind == "ffn" else ORIGINAL
    cloze_net.ClozeNet = net
    cloze_net.nn.GRU = LSTM if kind == "lstm" else GRU
    inputs = {"text": run / "results/text/train.txt", "heldout": run / "results/gap/heldout.tsv"}
    outputs = {"model": folder / "model", "loss": folder / "loss.tsv", "record": folder / "training.json"}
    started = time.monotonic()
    with open(folder / "train.log", "w") as log:
        record = train_cloze(inputs, settings, outputs, 2, log)
    return record, time.monotonic() - started


def predicted(run, folder, corpus):
    """Predict dev-0 with the variant trained into folder; return each line's log-probability."""
    predictor = ClozePredictor(*load_cloze(folder / "model"), batch_size=256)
    out = SimpleNamespace(out=folder / "out.tsv", stats=folder / "stats.json", fit=folder / "fit.json")
    with open(folder / "gap.log", "w") as log:
        write_cloze(predictor, corpus / "dev-0", {"heldout": run / "results/gap/heldout.tsv"}, 100, out, log)
    metrics, per_line = score_files(folder / "out.tsv", corpus / "dev-0/expected.tsv")
    return metrics["PerplexityHashed"], np.exp(np.array(per_line))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--only", nargs="*", help="the variants to train (default: all)")
    args = parser.parse_args()
    torch.set_num_threads(2)
    for run in args.runs:
        corpus = Path(json.loads((run / "config.yaml").read_text())["corpus"]["source"])
        members = json.loads((run / "results/gap/both/blend/dev-0/weights.json").read_text())["members"]
        probabilities = member_probabilities([run / f"results/gap/metrics/{name}/dev-0.lines.tsv" for name in members])
        plain, small = plain_members(members), members.index("both/small")
        print(
            f"\n{run} (steps {args.steps}; the blend of its n-grams, document family and unigram: "
            f"{cross_fitted_perplexity(probabilities[:, plain]):.2f}, with the small causal model: "
            f"{cross_fitted_perplexity(probabilities[:, [*plain, small]]):.2f})\n"
        )
        print("| Variant | Alone | Blend with it | Blend with it and the small causal model | Training (s) | Words/s |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, (settings, kind) in VARIANTS.items():
            if args.only and name not in args.only:
                continue
            folder = run / "cloze-variants" / name.replace(" ", "-").replace(",", "").replace("(", "").replace(")", "")
            folder.mkdir(parents=True, exist_ok=True)
            record, seconds = trained(run, folder, {**DEFAULTS, **settings, "steps": args.steps}, kind)
            alone, column = predicted(run, folder, corpus)
            with_plain = cross_fitted_perplexity(np.column_stack([probabilities[:, plain], column]))
            with_all = cross_fitted_perplexity(np.column_stack([probabilities[:, [*plain, small]], column]))
            print(
                f"| {name} | {alone:.2f} | {with_plain:.2f} | {with_all:.2f} | {seconds:.0f} | "
                f"{record['train_words_per_second']:,.0f} |",
                flush=True,
            )
        cloze_net.ClozeNet, cloze_net.nn.GRU = ORIGINAL, GRU


if __name__ == "__main__":
    main()
