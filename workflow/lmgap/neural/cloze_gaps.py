"""A cloze model's gap predictions: each gap's distribution over the model's vocabulary, from the
`window` words on each side of it. Its `top_k` most probable words are listed and p0 is the rest,
the unknown-word class's probability among it. A temperature, fit on the held-out training gaps
(never on a scored split), sets how sharp the distribution is, and so p0."""

import math
import time
from pathlib import Path

import numpy as np

from ..atomic import write_json
from ..errors import LmgapError
from ..gap.geval import DEFAULT_BITS, bucket
from ..gap.heldout import read_heldout
from ..gap.lines import decoded, format_line, read_gaps, write_out
from .cloze import UNKNOWN, WEIGHTS, marks, read_folder, word_index
from .model import device

# Temperatures tried on the held-out gaps: 0.25 to 3.6, 25% apart, then the best and five each side of
# it, 2.5% apart (the objective is smooth in the temperature: a finer step gains nothing measurable).
COARSE = tuple(0.25 * 1.25**k for k in range(13))
FINE = tuple(1.025**k for k in range(-5, 6))


def load_cloze(folder):
    """(network in evaluation mode on device(), its config, its vocabulary) from a folder."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    from .cloze_net import ClozeNet

    config, words = read_folder(folder)
    model = ClozeNet(config["words"], config["width"], config["layers"], dropout=0.0)
    try:
        model.load_state_dict(load_file(Path(folder) / WEIGHTS))
    except (OSError, RuntimeError, SafetensorError) as err:
        raise LmgapError(
            f"cannot load {Path(folder) / WEIGHTS} ({err}); copy the folder again, or train it again"
        ) from None
    model.eval()
    return model.to(device()), config, words


class ClozePredictor:
    """Each gap's log-probabilities of every class (0: unknown, then the vocabulary) under one model."""

    def __init__(self, model, config, words, batch_size):
        self.model, self.window, self.batch_size = model, config["window"], batch_size
        self.index = word_index(words)
        # Each class's word as out.tsv lists it (the vocabulary is UTF-8; the unknown class is never listed).
        self.names = [None, *(word.decode("utf-8") for word in words)]
        self.start, self.end = marks(len(words))

    def sides(self, left, right):
        """The ids the model reads (contexts as bytes): the window's words nearest the gap, with the line's
        start (or end) mark where the whole context fits, as the training lines hold them."""
        before, after = left.split(), right.split()
        left_ids = [self.index.get(word, UNKNOWN) for word in before[max(0, len(before) - self.window) :]]
        right_ids = [self.index.get(word, UNKNOWN) for word in after[: self.window]]
        start = [self.start] if len(before) <= self.window else []
        end = [self.end] if len(after) <= self.window else []
        return start + left_ids, right_ids + end

    def batches(self, gaps):
        """Log-probabilities (a torch tensor, gaps x classes, double) of each batch of gaps [(left, right)]."""
        import torch

        with torch.inference_mode():
            for at in range(0, len(gaps), self.batch_size):
                lefts, rights = zip(*(self.sides(left, right) for left, right in gaps[at : at + self.batch_size]))
                yield self.model.log_probabilities(self.model.gap_states(lefts, rights))

    def listed(self, log_probabilities, top_k):
        """Each gap's top_k word ids (the unknown class never), most probable first, ties by id."""
        import torch

        scores = log_probabilities.clone()
        scores[:, UNKNOWN] = -math.inf
        top = torch.topk(scores, min(top_k, scores.shape[1] - 1), dim=1).indices.cpu().numpy()
        values = scores.gather(1, torch.from_numpy(top).to(scores.device)).cpu().numpy()
        order = np.lexsort((top, -values), axis=1)
        return np.take_along_axis(top, order, axis=1)


def fit_temperature(predictor, heldout, top_k, bits=DEFAULT_BITS):
    """(temperature, {temperature: mean log-probability}): the one under which GEval's hashed probability
    of the held-out gap words is highest (each gap read as line k + 1 of a file), of COARSE, then FINE
    times the best of those."""
    import torch

    gaps, words = [(left, right) for _, _, left, right in heldout], [word.decode() for _, word, _, _ in heldout]
    listed = []
    for batch in predictor.batches(gaps):
        top = predictor.listed(batch, top_k)
        at = sum(len(ids) for ids, _ in listed)
        # Which listed words fall in the bucket of the gap's word (itself too, if listed).
        same = [
            [
                bucket(predictor.names[word], bits, at + row + 1) == bucket(words[at + row], bits, at + row + 1)
                for word in ids
            ]
            for row, ids in enumerate(top)
        ]
        listed.append((top, np.array(same)))
    tried = {}

    def mean_log(temperatures):
        totals = np.zeros(len(temperatures))
        for batch, (top, same) in zip(predictor.batches(gaps), listed):
            # Single precision: the objective's differences between temperatures are far above its rounding.
            batch, top = batch.float(), torch.from_numpy(top).to(batch.device)
            same = torch.from_numpy(same).to(batch.device)
            for number, temperature in enumerate(temperatures):
                probabilities = torch.log_softmax(batch / temperature, dim=1).gather(1, top).exp()
                # At 0 or above: a sharp distribution's listed words may sum past 1 by a rounding.
                rest = (1.0 - probabilities.sum(dim=1)).clamp(min=0.0)
                totals[number] += float(torch.log((probabilities * same).sum(dim=1) + rest / 2**bits).sum())
        tried.update(zip(temperatures, (totals / len(gaps)).tolist()))
        return temperatures[int(np.argmax(totals))]

    best = mean_log(COARSE)
    best = mean_log([best * step for step in FINE])
    return best, dict(sorted(tried.items()))


def write_cloze(predictor, split_dir, inputs, top_k, outputs, log):
    """out.tsv, stats and fit of a cloze model on a split (inputs: heldout, the training gaps the
    temperature is fit on)."""
    import torch

    started = time.monotonic()
    heldout = [entry for entry in read_heldout(inputs["heldout"]) if decoded(entry[1]) is not None]
    if not heldout:
        raise LmgapError(
            f"{inputs['heldout']} holds no held-out gap to fit the temperature on; raise gap.heldout_lines"
        )
    temperature, fit = fit_temperature(predictor, heldout, top_k)
    gaps = read_gaps(split_dir)

    def rows():
        for batch in predictor.batches(gaps):
            top = predictor.listed(batch, top_k)
            probabilities = torch.softmax(batch / temperature, dim=1).cpu().numpy()
            for ids, row in zip(top, probabilities):
                text, listed, p0 = format_line([predictor.names[i] for i in ids], row[ids], top_k, 1.0)
                yield text, len(predictor.names) - 1, listed, p0

    method = (
        f"the probability left off the words listed (the unknown-word class's among it), at temperature "
        f"{temperature:.3f}, fit on {len(heldout):,} held-out training gaps"
    )
    write_out(rows(), outputs.out, outputs.stats, method)
    write_json(
        {
            "temperature": temperature,
            "heldout_gaps": len(heldout),
            "mean_log_probability": {f"{t:.4f}": v for t, v in fit.items()},
        },
        outputs.fit,
    )
    log.write(f"predicted {len(gaps):,} gaps at temperature {temperature:.3f} in {time.monotonic() - started:.1f} s\n")
