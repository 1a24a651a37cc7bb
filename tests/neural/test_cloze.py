"""The cloze family against hand-worked expectations: the words it names and the lines it learns from,
exact reruns, and its reach: on a corpus whose gap word is fixed by a word beyond the 5-gram's
window, it names the word and the 5-gram cannot."""

import json
import lzma
import math
import random
import subprocess
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from lmgap.corpus.rebuild import rebuild_split
from lmgap.errors import LmgapError
from lmgap.gap.geval import REST, bucket, parse_line, read_lines, score_files
from lmgap.gap.heldout import write_heldout
from lmgap.neural.cloze import UNKNOWN, encode_lines, read_folder, training_lines, vocabulary, word_index

torch = pytest.importorskip("torch")

from lmgap.neural.cloze_gaps import ClozePredictor, fit_temperature, load_cloze, write_cloze  # noqa: E402
from lmgap.neural.cloze_train import train_cloze  # noqa: E402

# The answers and the words that fix them, one pair each; fillers drawn at random around them.
ANSWERS = ["apple", "brick", "cloud", "drum"]
TRIGGERS = ["Alpha,", "Bravo.", "Charlie", "delta"]
FILLERS = [f"w{k}" for k in range(12)]
# The trigger's distance from the gap: beyond the 4 words a 5-gram reads on either side.
DISTANCE = 6
SIDE = 10
SMALL = {
    "width": 32,
    "layers": 1,
    "window": 8,
    "vocab_size": 1000,
    "min_count": 1,
    "dropout": 0.0,
    "batch_size": 32,
    "learning_rate": 0.01,
    "steps": 1000,
    "seed": 3,
    "train_fraction": 1.0,
}


def write_text(path, lines):
    Path(path).write_bytes(b"".join(line.encode() + b"\n" for line in lines))


def heldout_file(path, lines):
    """A heldout.tsv holding the given line numbers (the cloze reads their numbers alone)."""
    Path(path).write_bytes(b"".join(b"%d\tw\tl\tr\n" % number for number in lines))
    return path


def test_the_vocabulary_is_the_raw_tokens_most_frequent_first_case_and_punctuation_kept(tmp_path):
    text = tmp_path / "train.txt"
    write_text(text, ["The the the, cat", "the cat The dog.", "dog. the \xa0x"])
    kept = np.ones(3, dtype=bool)
    # Counted by hand: the 3, The 2, cat 2, dog. 2, the, 1, \xa0x 1 (a no-break space is no ASCII space);
    # ties in byte order.
    words, count = vocabulary(text, kept, size=10, min_count=2)
    assert words == [b"the", b"The", b"cat", b"dog."] and count == 11
    assert vocabulary(text, kept, size=2, min_count=1)[0] == [b"the", b"The"]
    # A line left out is not counted: the 2, The 2, cat 2.
    assert vocabulary(text, np.array([True, True, False]), size=10, min_count=2)[0] == [b"The", b"cat", b"the"]


def test_a_word_that_is_not_utf8_is_never_named(tmp_path):
    text = tmp_path / "train.txt"
    text.write_bytes(b"caf\xe9 caf\xe9 cafe cafe\n")
    assert vocabulary(text, np.ones(1, dtype=bool), size=10, min_count=1)[0] == [b"cafe"]


def test_the_lines_learnt_from_are_the_nested_sample_less_the_heldout_ones(tmp_path):
    text = tmp_path / "train.txt"
    write_text(text, [f"line{number}" for number in range(1, 21)])
    heldout = heldout_file(tmp_path / "heldout.tsv", [2, 7, 20])
    kept = training_lines(text, heldout, 1.0)
    assert np.flatnonzero(~kept).tolist() == [1, 6, 19]
    half = training_lines(text, heldout, 0.5)
    # The half sample's lines (lmgap.corpus.sampling), every one of them inside the whole split's.
    assert half.sum() <= 10 and not (half & ~kept).any() and (half | ~kept).sum() >= 10


def test_each_line_is_encoded_between_its_marks_and_unknown_words_share_one_id(tmp_path):
    text = tmp_path / "train.txt"
    write_text(text, ["a b zz", "b"])
    words = [b"b", b"a"]
    stream = encode_lines(text, np.ones(2, dtype=bool), word_index(words))
    # b is 1, a is 2, the start mark 3 and the end mark 4.
    assert stream.tolist() == [3, 2, 1, UNKNOWN, 4, 3, 1, 4]


def reach_line(rng, answer, side):
    """(left, gap word, right): fillers, with the answer's trigger DISTANCE words from the gap on one side."""
    left, right = rng.choices(FILLERS, k=SIDE), rng.choices(FILLERS, k=SIDE)
    (left if side == "left" else right)[-DISTANCE if side == "left" else DISTANCE - 1] = TRIGGERS[answer]
    return " ".join(left), ANSWERS[answer], " ".join(right)


def write_reach_split(folder, lines):
    folder.mkdir(parents=True)
    with lzma.open(folder / "in.tsv.xz", "wt", encoding="utf-8") as ins:
        ins.writelines(f"doc{n}\t1900\t{left}\t{right}\n" for n, (left, _, right) in enumerate(lines))
    (folder / "expected.tsv").write_text("".join(f"{word}\n" for _, word, _ in lines))


@pytest.fixture(scope="module")
def reach(tmp_path_factory):
    """A corpus whose gap word is fixed by a trigger word DISTANCE words from the gap, left or right,
    and a cloze model trained on it as the pipeline trains one."""
    root = tmp_path_factory.mktemp("reach")
    rng = random.Random(11)
    for split, count in (("train", 3000), ("dev-0", 200)):
        lines = [reach_line(rng, rng.randrange(len(ANSWERS)), rng.choice(["left", "right"])) for _ in range(count)]
        write_reach_split(root / "corpus" / split, lines)
    rebuild_split(root / "corpus/train", root / "train.txt")
    write_heldout(root / "corpus/train", 4000, root / "heldout.tsv", root / "gap_words.tsv")
    inputs = {"text": root / "train.txt", "heldout": root / "heldout.tsv"}
    outputs = {"model": root / "model", "loss": root / "loss.tsv", "record": root / "training.json"}
    with open(root / "train.log", "w") as log:
        train_cloze(inputs, SMALL, outputs, 1, log)
    predictor = ClozePredictor(*load_cloze(root / "model"), batch_size=64)
    out = SimpleNamespace(out=root / "out.tsv", stats=root / "stats.json", fit=root / "fit.json")
    with open(root / "gap.log", "w") as log:
        write_cloze(predictor, root / "corpus/dev-0", inputs, 100, out, log)
    return root


def five_gram_probabilities(root, kenlm_bin):
    """Each dev-0 gap's probability of its word under a 5-gram of the training text, its distribution
    over the four answers alone (as generous as can be: every other word gets nothing), and whether
    the word is the 5-gram's first."""
    import kenlm

    arpa = root / "o5.arpa"
    with open(root / "train.txt", "rb") as text, open(arpa, "wb") as out:
        subprocess.run(
            [str(kenlm_bin / "lmplz"), "-o", "5", "--discount_fallback"],
            stdin=text,
            stdout=out,
            check=True,
            stderr=subprocess.DEVNULL,
        )
    model = kenlm.Model(str(arpa))
    expected = read_lines(root / "corpus/dev-0/expected.tsv")
    contexts = [line.split("\t")[-2:] for line in lzma.open(root / "corpus/dev-0/in.tsv.xz", "rt").read().splitlines()]
    chosen, first = [], []
    for (left, right), word in zip(contexts, expected):
        scores = np.array([model.score(f"{left} {answer} {right}") for answer in ANSWERS]) * math.log(10)
        probabilities = np.exp(scores - scores.max())
        chosen.append(probabilities[ANSWERS.index(word)] / probabilities.sum())
        first.append(ANSWERS[int(np.argmax(probabilities))] == word)
    return np.array(chosen), np.array(first)


@pytest.mark.pipeline
def test_the_cloze_names_a_word_fixed_beyond_the_5_gram_window_and_the_5_gram_cannot(reach, kenlm_bin):
    # Worked by hand: the four answers are equally likely whatever the words within 4 of the gap, so no
    # model reading only those can give the answer more than 1/4 on average; a model that reads the
    # trigger can give it all. The cloze's likelihood (GEval's geometric mean of each gap word's
    # bucket, its p0 spread over 1,024 buckets) must pass twice that bound.
    blind = 1 / len(ANSWERS)
    metrics, _ = score_files(reach / "out.tsv", reach / "corpus/dev-0/expected.tsv")
    assert metrics["LikelihoodHashed"] > 2 * blind and metrics["Accuracy"] > 0.9
    five_gram, first = five_gram_probabilities(reach, kenlm_bin)
    assert math.exp(np.mean(np.log(five_gram))) < 1.1 * blind and np.mean(first) < 2 * blind


def test_each_line_lists_top_k_words_whose_probabilities_and_p0_sum_to_one_as_geval_reads_them(reach):
    lines = read_lines(reach / "out.tsv")
    assert len(lines) == 200
    for line in lines:
        specs = parse_line(line)
        words = [word for word, _ in specs if word is not REST]
        assert len(words) == len(set(words)) <= 100 and specs[-1][0] is REST and specs[-1][1] >= 0
        assert math.fsum(value for _, value in specs) == pytest.approx(1.0, abs=1e-9)
    stats = json.loads((reach / "stats.json").read_text())
    fit = json.loads((reach / "fit.json").read_text())
    assert f"{fit['temperature']:.3f}" in stats["p0_method"] and fit["heldout_gaps"] == 300
    # The temperature chosen is the best tried, however sharp the others made the lines.
    tried = fit["mean_log_probability"]
    assert not any(math.isnan(value) for value in tried.values())
    assert tried[f"{fit['temperature']:.4f}"] == max(tried.values())


class Fixed:
    """A predictor that gives every gap the same log-probabilities: the unknown class almost none, and
    100 words at random ones whose probabilities, sharpened in single precision, sum past 1 by a rounding."""

    names = [None, *(f"w{k}" for k in range(1, 101))]
    listed = ClozePredictor.listed

    def batches(self, gaps):
        values = torch.randn(1, 101, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
        values[0, 0] = -60
        yield torch.log_softmax(values, dim=1).repeat(len(gaps), 1)


def test_the_temperature_is_the_best_tried_where_sharp_lines_list_all_but_a_rounding():
    # The gap's word is none of the listed ones (nor in their buckets), so a line whose listed words sum
    # past 1 leaves it nothing: minus infinity, never a NaN that would pass for the best.
    assert bucket("unseen", 10, 1) not in {bucket(word, 10, 1) for word in Fixed.names[1:]}
    temperature, tried = fit_temperature(Fixed(), [(1, b"unseen", b"a", b"b")], 100)
    assert not any(math.isnan(value) for value in tried.values())
    assert tried[temperature] == max(tried.values()) > -math.inf


def test_the_prediction_reads_no_gap_word_of_the_split_it_predicts(reach, tmp_path):
    # The temperature, and so p0, is fit on the held-out training gaps: the split's answers change nothing.
    corpus = tmp_path / "dev-0"
    corpus.mkdir()
    (corpus / "in.tsv.xz").write_bytes((reach / "corpus/dev-0/in.tsv.xz").read_bytes())
    predictor = ClozePredictor(*load_cloze(reach / "model"), batch_size=7)
    out = SimpleNamespace(out=tmp_path / "out.tsv", stats=tmp_path / "stats.json", fit=tmp_path / "fit.json")
    with open(tmp_path / "log", "w") as log:
        write_cloze(predictor, corpus, {"heldout": reach / "heldout.tsv"}, 100, out, log)
    assert (tmp_path / "out.tsv").read_bytes() == (reach / "out.tsv").read_bytes()


def test_training_is_deterministic_for_a_seed_and_leaves_out_the_heldout_lines(reach, tmp_path):
    inputs = {"text": reach / "train.txt", "heldout": reach / "heldout.tsv"}
    for run in ("first", "second"):
        outputs = {name: tmp_path / run / name for name in ("model", "loss.tsv", "training.json")}
        with open(tmp_path / f"{run}.log", "w") as log:
            train_cloze(
                inputs,
                {**SMALL, "steps": 30},
                {"model": outputs["model"], "loss": outputs["loss.tsv"], "record": outputs["training.json"]},
                1,
                log,
            )
    for name in ("model/model.safetensors", "model/vocab.txt", "model/config.json"):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name).read_bytes(), name
    losses = [
        [line.split("\t")[:3] for line in (tmp_path / run / "loss.tsv").read_text().splitlines()]
        for run in ("first", "second")
    ]
    assert losses[0] == losses[1] and len(losses[0]) == 31
    record = json.loads((reach / "training.json").read_text())
    assert record["training_text"] == {"lines": 2700, "words": 2700 * (2 * SIDE + 1), "heldout_lines_left_out": 300}
    config, words = read_folder(reach / "model")
    assert sorted(words) == sorted(word.encode() for word in ANSWERS + TRIGGERS + FILLERS)
    assert config["window"] == SMALL["window"] and config["words"] == len(words)


def test_the_model_reads_the_window_nearest_the_gap_with_a_line_mark_where_the_context_ends(reach):
    predictor = ClozePredictor(*load_cloze(reach / "model"), batch_size=1)
    number = dict(zip(read_folder(reach / "model")[1], range(1, 100)))
    left = b" ".join(f"w{k}".encode() for k in range(10))
    # Ten words left: the eight nearest, no start mark; two right: both, then the end mark.
    ids_left, ids_right = predictor.sides(left, b"w1 unseen")
    assert ids_left == [number[f"w{k}".encode()] for k in range(2, 10)]
    assert ids_right == [number[b"w1"], UNKNOWN, predictor.end]
    assert predictor.sides(b"", b"") == ([predictor.start], [predictor.end])
    # Five words left, fewer than the window's eight and more than half of them: all five, after the
    # start mark (a slice from len - window would keep the nearest three).
    five = b" ".join(f"w{k}".encode() for k in range(5))
    assert predictor.sides(five, b"")[0] == [predictor.start, *(number[f"w{k}".encode()] for k in range(5))]


def test_a_folder_that_holds_no_cloze_model_is_refused_with_the_fix(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "gpt2"}')
    (tmp_path / "vocab.txt").write_text("")
    with pytest.raises(LmgapError, match="model_type 'gpt2', not 'lmgap-cloze'.*kind"):
        read_folder(tmp_path)
