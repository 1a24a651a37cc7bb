"""The blend: per gap, a linear mixture of every system's prediction.

GEval hashes a line's words into buckets and spreads its rest mass over all of them, both
linearly, so the mixture of several lines, `sum_m w_m P_m(word)` for every word any of them
lists and `sum_m w_m p0_m` as the rest mass, puts `sum_m w_m B_m(b)` in every bucket b: the blend's
hashed probability of a gap word is the same mixture of the members' hashed probabilities of it,
which gap_evaluate's lines.tsv gives per line. The weights are found by EM, which raises its
objective at every step towards its maximum (the problem is concave): the mean log of that
mixture, with PRIOR pseudo-gaps of credit for every member (a Dirichlet prior, the maximum a
posteriori weights). Without them, EM on a small split's folds drives to 0 the weight of a member
that only some gaps need, and a held-out gap that needs it gets the floor: on 85 dev-0 gaps of a
generated corpus the cross-fitted blend was then 5% worse than its best member, and 0.2% better
with them; on 640 gaps of real English they cost 0.1%. Where one member is best everywhere, the
others keep a share of about (members - 1) / gaps, so the blend's log-loss on the gaps it is fit
on may exceed the best member's by about as much (tests/gap/test_blend.py bounds it).

Where the weights are fit. Not on the held-out training gaps: they are held out of the candidate
index only, and every n-gram has trained on their lines, so it knows their words (on the demo
corpus of 3,000 lines, o3's PerplexityHashed was 88 on them and 334 on dev-0) and the fit would give the
highest order all the weight. Instead the scored split is cross-fitted: its lines are dealt into
FOLDS folds by line number, and each fold's lines are predicted with weights fit on the other
folds' gaps, so no gap's own word ever weighs in its prediction. A split without gap words
(test-A) takes the weights fit on all the gaps of the first scored split.
"""

import numpy as np

from ..atomic import write_json
from ..errors import LmgapError
from ..tsv import LINES, read_tsv
from .geval import REST, parse_line, read_predictions
from .lines import format_line, write_out

FOLDS = 5
ITERATIONS = 10_000
TOLERANCE = 1e-12
# Pseudo-gaps of credit each member starts with (see the module's text).
PRIOR = 1.0
# A member that gives a gap word's bucket no probability at all still leaves the mixture defined.
FLOOR = 1e-300
# The prior keeps every weight at PRIOR / (gaps + members * PRIOR) at least (1e-5 on the real
# dev-0): a member weighted below this, which only a fit on about 1e9 gaps could give, has its
# words not listed (their mass goes to p0, a bucket's least share being p0 / 1,024).
NEGLIGIBLE = 1e-9


def mean_log(probabilities, weights):
    """Mean natural log of the mixture's probability of each gap word (probabilities: gaps x members)."""
    return float(np.mean(np.log(np.maximum(probabilities @ weights, FLOOR))))


def fit_weights(probabilities):
    """Weights maximising mean_log + PRIOR * sum(log(weights)) / gaps, by EM from equal ones (probabilities: gaps x
    members, of each gap word's bucket); equal weights with no gaps to fit on (a one-line split's other folds)."""
    probabilities = np.maximum(np.asarray(probabilities, dtype=np.float64), FLOOR)
    gaps, members = probabilities.shape
    weights = np.full(members, 1.0 / members)
    if gaps == 0:
        return weights
    best = objective(probabilities, weights)
    for _ in range(ITERATIONS):
        credit = (probabilities * weights / (probabilities @ weights)[:, None]).sum(axis=0)
        weights = (credit + PRIOR) / (gaps + members * PRIOR)
        value = objective(probabilities, weights)
        if value - best < TOLERANCE:
            break
        best = value
    return weights


def objective(probabilities, weights):
    """What fit_weights maximises: mean_log with the prior's pseudo-gaps."""
    return mean_log(probabilities, weights) + PRIOR * float(np.log(weights).sum()) / len(probabilities)


def listed_words(line):
    """{word: probability} of a `word:p ... :p0` line as the systems write them (p0 left out)."""
    words = {}
    for word, value in parse_line(line):
        if word is not REST:
            words[word] = words.get(word, 0.0) + value
    return words


def mixed_line(lines, weights):
    """One out.tsv line mixing the members' lines: every word any member with weight lists."""
    mixture = {}
    for line, weight in zip(lines, weights):
        if weight < NEGLIGIBLE:
            continue
        for word, value in listed_words(line).items():
            mixture[word] = mixture.get(word, 0.0) + weight * value
    words = list(mixture)
    return format_line(words, np.array([mixture[word] for word in words]), len(words), 1.0)


def read_line_log_probabilities(path):
    """The natural-log probability of each gap's word, from gap_evaluate's lines.tsv."""
    return read_tsv(path, LINES, integers=("line",))["log_probability"].tolist()


def member_probabilities(lines_paths):
    """gaps x members: each member's hashed probability of each gap's word."""
    columns = [read_line_log_probabilities(path) for path in lines_paths]
    if len({len(column) for column in columns}) != 1:
        raise LmgapError(
            f"the members' lines.tsv files differ in length ({dict(zip(lines_paths, map(len, columns)))}); "
            "delete them and rerun, so that every member is scored on the split as it is now"
        )
    return np.exp(np.array(columns, dtype=np.float64).T)


def fold_of(line_count):
    """The fold (0 .. FOLDS - 1) of each line: line numbers dealt in turn."""
    return np.arange(line_count) % FOLDS


def cross_fitted_weights(probabilities):
    """(weights per line, weights of each fold): each line's from the other folds' gaps."""
    folds = fold_of(len(probabilities))
    fitted = [fit_weights(probabilities[folds != fold]) for fold in range(FOLDS)]
    return np.array([fitted[fold] for fold in folds]), fitted


def write_blend(members, cross_fit, outputs):
    """The blend of the members' out.tsv files on one split. members: {"outs": {name: its out.tsv}, "fit": {name:
    its lines.tsv on this split (cross_fit) or the split whose gaps set the weights}}; outputs: out, weights, stats."""
    names = list(members["outs"])
    fit_lines, outs = [members["fit"][name] for name in names], [members["outs"][name] for name in names]
    probabilities = member_probabilities(fit_lines)
    overall = fit_weights(probabilities)
    contents = [read_predictions(path) for path in outs]
    if len({len(lines) for lines in contents}) != 1:
        raise LmgapError(f"the members' out.tsv files differ in length: {dict(zip(outs, map(len, contents)))}")
    if cross_fit:
        if len(probabilities) != len(contents[0]):
            raise LmgapError(f"{fit_lines[0]} and {outs[0]} differ in length; delete the first and rerun")
        per_line, by_fold = cross_fitted_weights(probabilities)
    else:
        per_line, by_fold = np.repeat(overall[None, :], len(contents[0]), axis=0), []
    mixed = (mixed_line(lines, weights) for lines, weights in zip(zip(*contents), per_line))
    write_out(((text, listed, listed, p0) for text, listed, p0 in mixed), outputs.out, outputs.stats)
    one_hot = np.eye(len(names))
    write_json(
        {
            "members": names,
            "weights": dict(zip(names, overall.tolist())),
            "fold_weights": [dict(zip(names, weights.tolist())) for weights in by_fold],
            "method": (
                f"EM on the members' hashed probabilities of the gap words, cross-fitted in {FOLDS} folds"
                if cross_fit
                else "EM on the members' hashed probabilities of the first scored split's gap words"
            ),
            "fit_gaps": int(len(probabilities)),
            "fit_log_loss_hashed": {
                **{name: -mean_log(probabilities, one_hot[index]) for index, name in enumerate(names)},
                "blend": -mean_log(probabilities, overall),
            },
        },
        outputs.weights,
    )
    return overall


def describe_weights(record):
    """The blend's weights and their in-sample log-losses (on the gaps they were fit on), in one
    line for the notes."""
    weights = ", ".join(f"`{name}` {weight:.3f}" for name, weight in record["weights"].items())
    losses = record["fit_log_loss_hashed"]
    best = min((loss, name) for name, loss in losses.items() if name != "blend")
    folds = f" (each line's own from the other {FOLDS - 1} folds)" if record["fold_weights"] else ""
    return (
        f"weights {weights}, fit by EM on all {record['fit_gaps']:,} gaps{folds}; on them, in-sample, "
        f"the blend's LogLossHashed is {losses['blend']:.4f} against {best[0]:.4f} for the best member "
        f"(`{best[1]}`)"
    )
