"""The blend against independent computations: EM's weights against a search over a fine grid,
the best member alone against a bound of what the prior costs, the mixed line's hashed
probability against the mixture of the members' as GEval scores each, and the cross-fitting's
folds against their own gaps."""

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from lmgap.gap import blend
from lmgap.gap.blend import FOLDS, fit_weights, mean_log, mixed_line, write_blend
from lmgap.gap.geval import DEFAULT_BITS, line_log_probability, parse_out_line, score_files


def grid_best(probabilities, steps=20_000):
    """The best two-member mixture by the fit's objective (the mean log with the prior's
    pseudo-gaps), trying every weight k / steps: no EM involved."""
    grid = np.linspace(0.0, 1.0, steps + 1)[1:-1]
    values = np.log(np.outer(probabilities[:, 0], grid) + np.outer(probabilities[:, 1], 1 - grid)).mean(axis=0)
    values += blend.PRIOR * (np.log(grid) + np.log(1 - grid)) / len(probabilities)
    return grid[int(values.argmax())], float(values.max())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_em_finds_the_best_two_member_mixture_a_grid_search_finds(seed):
    rng = np.random.default_rng(seed)
    probabilities = rng.uniform(0.001, 0.2, size=(400, 2)) * rng.uniform(0.2, 1.0, size=2)
    weight, value = grid_best(probabilities)
    fitted = fit_weights(probabilities)
    assert blend.objective(probabilities, fitted) >= value - 1e-9
    assert fitted[0] == pytest.approx(weight, abs=2e-3)


def test_a_member_that_is_always_better_gets_all_the_weight_but_the_prior_s():
    rng = np.random.default_rng(4)
    weak = rng.uniform(0.001, 0.01, size=300)
    probabilities = np.stack([weak * 3, weak], axis=1)
    fitted = fit_weights(probabilities)
    # The weak member keeps about its one pseudo-gap of the 302.
    assert 0 < fitted[1] <= (1 + blend.PRIOR) / 302


def worst_shortfall(gaps, members):
    """How far below the best member alone the fit's mean log can be: the fit's objective is at
    least that of w (the best member (gaps + 1) / (gaps + members), every other 1 / (gaps +
    members)), whose mean log is at least the best member's plus log(w_best), and whose prior
    term falls short of the largest there is (-members log members) by what this adds."""
    total = gaps + members
    best_log = math.log((gaps + 1) / total)
    prior_gap = -members * math.log(members) - (best_log - (members - 1) * math.log(total))
    return -best_log + blend.PRIOR * prior_gap / gaps


@pytest.mark.parametrize("seed", range(5))
def test_the_fit_falls_short_of_the_best_member_alone_by_at_most_the_prior_s_share(seed):
    rng = np.random.default_rng(seed)
    probabilities = rng.uniform(0, 1, size=(50, 6)) ** rng.uniform(1, 8, size=6)
    fitted = fit_weights(probabilities)
    assert fitted.sum() == pytest.approx(1.0) and (fitted > 0).all()
    for member in range(6):
        assert mean_log(probabilities, fitted) >= mean_log(probabilities, np.eye(6)[member]) - worst_shortfall(50, 6)


def test_the_prior_spares_a_held_out_gap_only_one_member_foresaw(monkeypatch):
    # Member 0 is twice as good on every gap but three, all in fold 0, where only member 1 has
    # the word: fold 0's weights are fit without them.
    probabilities = np.tile([0.1, 0.05], (60, 1))
    probabilities[[0, 5, 10], 0] = 1e-12
    cross_fitted = {}
    for prior in (0.0, blend.PRIOR):
        monkeypatch.setattr(blend, "PRIOR", prior)
        weights, _ = blend.cross_fitted_weights(probabilities)
        cross_fitted[prior] = float(np.mean(np.log((probabilities * weights).sum(axis=1))))
    # Without the prior fold 0 gives member 1 nothing and those gaps about 1e-12 (log -27.6).
    assert cross_fitted[0.0] < math.log(0.1) - 3 * 20 / 60
    assert cross_fitted[blend.PRIOR] > cross_fitted[0.0] + 1


def test_a_mixed_line_puts_the_mixture_of_the_members_in_the_gap_words_bucket():
    # Hand-made lines: shared and distinct words, each with its rest mass.
    members = ["the:0.5 a:0.2 of:0.1 :0.2", "a:0.6 in:0.3 :0.1", "the:0.05 zebra:0.05 :0.9"]
    weights = np.array([0.5, 0.3, 0.2])
    text, listed, p0 = mixed_line(members, weights)
    assert listed == 5 and p0 == pytest.approx(0.5 * 0.2 + 0.3 * 0.1 + 0.2 * 0.9, abs=1e-9)
    for line_number in (1, 7, 123):
        for word in ("the", "a", "in", "zebra", "unlisted"):
            each = [
                math.exp(line_log_probability(*parse_out_line(line), word, DEFAULT_BITS, line_number))
                for line in members
            ]
            got = math.exp(line_log_probability(*parse_out_line(text), word, DEFAULT_BITS, line_number))
            assert got == pytest.approx(float(np.dot(weights, each)), rel=1e-5)


def write_members(folder, lines):
    """out.tsv and lines.tsv of members, as write_blend takes them: {"outs": {member: out}, "fit": {member:
    lines}}; lines: {member: [(out line, log-probability of the gap word)]}."""
    members = {"outs": {}, "fit": {}}
    for name, rows in lines.items():
        out, score = folder / f"{name}.out.tsv", folder / f"{name}.lines.tsv"
        out.write_text("".join(line + "\n" for line, _ in rows))
        score.write_text("line\tlog_probability\n" + "".join(f"{n}\t{v!r}\n" for n, (_, v) in enumerate(rows, 1)))
        members["outs"][name], members["fit"][name] = out, score
    return members


def outputs(folder, suffix=""):
    """A blend's output paths, named as the rule names them."""
    return SimpleNamespace(
        out=folder / f"out{suffix}.tsv", weights=folder / f"w{suffix}.json", stats=folder / f"s{suffix}.json"
    )


def test_cross_fitting_never_lets_a_gap_weigh_in_its_own_prediction(tmp_path):
    rng = np.random.default_rng(5)
    gaps = 40
    probabilities = rng.uniform(0.01, 0.5, size=(gaps, 2))
    lines = {
        name: [(f"w{column}:{p:.6g} :{1 - p:.6g}", math.log(p)) for p in probabilities[:, column]]
        for column, name in enumerate(("one", "two"))
    }
    write_blend(write_members(tmp_path, lines), True, outputs(tmp_path))
    first = json.loads((tmp_path / "w.json").read_text())
    assert len(first["fold_weights"]) == FOLDS
    # Line 1 is in fold 0: making its gap word far likelier for `one` moves every fold's weights
    # but fold 0's, and line 1's blend line is unchanged.
    changed = dict(lines)
    changed["one"] = [(lines["one"][0][0], math.log(0.999)), *lines["one"][1:]]
    write_blend(write_members(tmp_path, changed), True, outputs(tmp_path, "2"))
    second = json.loads((tmp_path / "w2.json").read_text())
    assert second["fold_weights"][0] == first["fold_weights"][0]
    assert all(second["fold_weights"][k] != first["fold_weights"][k] for k in range(1, FOLDS))
    assert (tmp_path / "out.tsv").read_text().splitlines()[0] == (tmp_path / "out2.tsv").read_text().splitlines()[0]
    # Each line is the mixture with its own fold's weights.
    for number, line in enumerate((tmp_path / "out.tsv").read_text().splitlines()):
        weights = first["fold_weights"][number % FOLDS]
        expected = mixed_line([lines["one"][number][0], lines["two"][number][0]], [weights["one"], weights["two"]])[0]
        assert line == expected


def test_a_split_without_gap_words_takes_the_weights_fit_on_all_the_scored_gaps(tmp_path):
    rng = np.random.default_rng(6)
    probabilities = rng.uniform(0.01, 0.5, size=(30, 2))
    lines = {
        name: [(f"w:{p:.6g} :{1 - p:.6g}", math.log(p)) for p in probabilities[:, k]]
        for k, name in enumerate(("one", "two"))
    }
    weights = write_blend(write_members(tmp_path, lines), False, outputs(tmp_path))
    np.testing.assert_allclose(weights, fit_weights(probabilities), rtol=1e-12)
    written = (tmp_path / "out.tsv").read_text().splitlines()
    assert written == [mixed_line([lines["one"][n][0], lines["two"][n][0]], weights)[0] for n in range(30)]
    record = json.loads((tmp_path / "w.json").read_text())
    assert record["fold_weights"] == [] and record["fit_gaps"] == 30
    assert record["fit_log_loss_hashed"]["blend"] <= min(record["fit_log_loss_hashed"].values()) + 1e-12
    assert "fit by EM on all 30 gaps; on them, in-sample," in blend.describe_weights(record)


def test_the_blend_of_real_lines_scores_as_geval_scores_the_mixture(tmp_path):
    # Members whose lines list many words, scored against gap words by GEval's own arithmetic.
    rng = np.random.default_rng(7)
    vocabulary = [f"word{k}" for k in range(300)]
    expected = [rng.choice(vocabulary) for _ in range(25)]
    (tmp_path / "expected.tsv").write_text("".join(word + "\n" for word in expected))
    outs = []
    for name in ("one", "two", "three"):
        path = tmp_path / f"{name}.out.tsv"
        rows = []
        for _ in expected:
            words = rng.choice(vocabulary, size=60, replace=False)
            values = rng.dirichlet(np.ones(61))
            rows.append(
                " ".join(f"{w}:{v:.6g}" for w, v in zip(words, values[:-1]))
                + f" :{1 - sum(float(f'{v:.6g}') for v in values[:-1]):.10g}"
            )
        path.write_text("\n".join(rows) + "\n")
        outs.append(path)
    per_member = [score_files(path, tmp_path / "expected.tsv")[1] for path in outs]
    weights = np.array([0.6, 0.3, 0.1])
    blended = [mixed_line(lines, weights)[0] for lines in zip(*(path.read_text().splitlines() for path in outs))]
    (tmp_path / "blend.tsv").write_text("\n".join(blended) + "\n")
    _, got = score_files(tmp_path / "blend.tsv", tmp_path / "expected.tsv")
    for number, value in enumerate(got):
        mixture = sum(w * math.exp(member[number]) for w, member in zip(weights, per_member))
        # Each listed value keeps six significant digits; p0 takes what their rounding leaves.
        assert math.exp(value) == pytest.approx(mixture, rel=1e-4)
