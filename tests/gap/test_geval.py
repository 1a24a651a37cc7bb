"""GEval's hashed metrics: its own test suite's examples, hand-worked vectors, malformed files, the CLI."""

import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lmgap.errors import LmgapError
from lmgap.gap.geval import bucket, parse_number, score_files, score_lines

LMGAP = str(Path(sys.executable).parent / "lmgap")


def digits_agree(value, printed):
    """value, written with as many decimals as GEval's test printed, gives its digits."""
    decimals = len(printed.split(".")[1])
    return f"{value:.{decimals}f}" == printed


# amu-cai/geval, test/Spec.hs and the files of its test/ folder: output lines, expected words,
# bucket bits, metric and the value the suite expects.
GEVAL_EXAMPLES = [
    # log-loss-hashed-probs: probabilities, a line short of 1, a rest mass.
    (
        ["A:0.6 B:0.4", "C:0.2 A:0.1", "A:0.4 C:0.4", "D:1.0", "C:0.4 B:0.5 :0.1"],
        ["A", "A", "B", "D", "A"],
        10,
        "LogLossHashed",
        "4.11631293099392",
    ),
    # likelihood-hashed-not-normalized (and log-loss-hashed-not-normalized, the same files):
    # values that are neither probabilities nor log-probabilities summing to one.
    (
        ["tak:10 nie:8.9", "niebieski:0 żółty:1.5 czerwony:-0.5"],
        ["tak", "niebieski"],
        8,
        "LikelihoodHashed8",
        "0.351043364110715",
    ),
    (
        ["tak:10 nie:8.9", "niebieski:0 żółty:1.5 czerwony:-0.5"],
        ["tak", "niebieski"],
        8,
        "LogLossHashed8",
        "1.0468455186722887",
    ),
]


@pytest.mark.parametrize("out, expected, bits, name, printed", GEVAL_EXAMPLES)
def test_geval_test_suite_examples_to_their_printed_digits(out, expected, bits, name, printed):
    metrics, _ = score_lines(out, expected, bits)
    assert digits_agree(metrics[name], printed), (metrics[name], printed)


# GEval's rules for probabilities (lookForProbs and normalizeProbs in src/GEval/LogLossHashed.hs),
# worked by hand on lines whose words fall in distinct buckets of line 1: values all in [0, 1] are
# probabilities; summing above one, or below one beside a `:p` rest, they are divided by their sum;
# summing below one without a rest, the missing mass becomes the rest; a rest spreads evenly over
# the 1,024 buckets.
HAND_WORKED = [
    ("A:0.6 B:0.9", -math.log(0.6 / 1.5)),
    ("A:0.2 B:0.3", -math.log(0.2 + 0.5 / 1024)),
    ("A:0.2 B:0.2 :0.1", -math.log(0.2 / 0.5 + 0.1 / 0.5 / 1024)),
]


@pytest.mark.parametrize("line, loss", HAND_WORKED)
def test_normalisation_follows_gevals_rules_worked_by_hand(line, loss):
    assert bucket("A", 10, 1) != bucket("B", 10, 1)
    assert score_lines([line], ["A"], 10)[0]["LogLossHashed"] == pytest.approx(loss, rel=1e-12)


def test_bucket_is_murmur3_x86_32_of_the_utf8_bytes_seeded_with_the_line():
    # MurmurHash3 x86 32-bit's published reference value ("Hello, world!", seed 1234): the
    # bucket is its remainder. The UTF-8 path is GEval's own `żółty` example above.
    assert bucket("Hello, world!", 10, 1234) == 0xFAF6CDB3 % 1024
    assert bucket("Hello, world!", 8, 1234) == 0xFAF6CDB3 % 256


def two_words_sharing_a_bucket(bits, seed):
    seen = {}
    for n in range(100000):
        word = f"w{n}"
        other = seen.setdefault(bucket(word, bits, seed), word)
        if other != word:
            return other, word
    raise AssertionError("no collision")


def apart(bits, seed, count):
    """count words in distinct buckets."""
    words, used = [], set()
    for n in range(1000):
        if bucket(f"v{n}", bits, seed) not in used:
            used.add(bucket(f"v{n}", bits, seed))
            words.append(f"v{n}")
        if len(words) == count:
            return words
    raise AssertionError


def test_hand_worked_lines():
    a, b = two_words_sharing_a_bucket(10, 1)
    x, y, z = apart(10, 1, 3)
    cases = [
        # a collision: both words' mass, and their share of the rest mass, land in one bucket
        (f"{a}:0.3 {b}:0.2 :0.5", a, math.log(0.3 + 0.2 + 0.5 / 1024)),
        # all the mass in p0: every word has 1/1024
        (":1", x, math.log(1 / 1024)),
        # probabilities summing above one are divided by their sum
        (f"{x}:0.6 {y}:0.6", x, math.log(0.5)),
        # probabilities short of one without a rest mass get the missing mass as rest
        (f"{x}:0.5", y, math.log(0.5 / 1024)),
        # log-probabilities summing above one: spread, then the buckets are divided by their sum
        (
            f"{x}:-1 {y}:-2 :-0.5",
            x,
            math.log((math.exp(-1) + math.exp(-0.5) / 1024) / (math.exp(-1) + math.exp(-2) + math.exp(-0.5))),
        ),
        # log-probabilities short of one: the missing mass becomes the rest
        (f"{x}:-1 {y}:-2", z, math.log((1 - math.exp(-1) - math.exp(-2)) / 1024)),
    ]
    for line, word, by_hand in cases:
        _, (value,) = score_lines([line], [word], 10)
        assert value == pytest.approx(by_hand, rel=1e-12, abs=1e-12), line


def test_a_word_in_an_empty_bucket_makes_the_perplexity_infinite():
    x, y = apart(10, 1, 2)
    metrics, values = score_lines([f"{x}:1"], [y], 10)
    assert values == [-math.inf]
    assert metrics["PerplexityHashed"] == math.inf and metrics["LikelihoodHashed"] == 0.0


# GEval's isProbTotalIncorrect: a total within 1e-8 below one is whole, so no rest mass is added
# and no bucket is rescaled; a word outside the listed ones then has nothing. 2e-8 short is not
# whole: the missing mass becomes the rest, spread over the 1,024 buckets.
@pytest.mark.parametrize("spell", [str, lambda p: repr(math.log(p))], ids=["probabilities", "log-probabilities"])
def test_a_line_within_gevals_epsilon_of_one_is_whole(spell):
    x, y, z = apart(10, 1, 3)
    line = lambda short: f"{x}:{spell(0.6)} {y}:{spell(0.4 - short)}"  # noqa: E731
    _, (unlisted, listed) = score_lines([line(5e-9), line(5e-9)], [z, x], 10)
    assert unlisted == -math.inf and listed == pytest.approx(math.log(0.6), rel=1e-12)
    _, (unlisted,) = score_lines([line(2e-8)], [z], 10)
    assert unlisted == pytest.approx(math.log(2e-8 / 1024), rel=1e-6)


def test_perplexity_is_exp_of_the_log_loss_over_lines_and_accuracy_reads_the_list():
    x, y, z = apart(10, 1, 3)
    metrics, values = score_lines([f"{x}:0.7 {y}:0.2 :0.1", f"{y}:0.5 {x}:0.4 :0.1"], [x, x], 10)
    assert metrics["LogLossHashed"] == -(values[0] + values[1]) / 2
    assert metrics["PerplexityHashed"] == math.exp(metrics["LogLossHashed"])
    assert (metrics["Accuracy"], metrics["Top10Accuracy"]) == (0.5, 1.0)


@pytest.mark.parametrize(
    "text, value",
    [
        ("0.5", 0.5),
        ("1", 1.0),
        ("-2.25", -2.25),
        ("+3", 3.0),
        ("1e-05", 1e-05),
        ("2.5E+2", 250.0),
        ("0.000123457", 0.000123457),
        ("007", 7.0),
    ],
)
def test_numbers_as_geval_reads_them(text, value):
    assert parse_number(text) == value


def test_plain_decimals_read_in_one_rounding_equal_gevals_own_formula():
    # GEval computes real + fraction / 10^digits in doubles; for `0.` and up to 15 digits that is
    # one correctly rounded division, the value the faster reading gives.
    rng = random.Random(0)
    for _ in range(20000):
        digits = rng.randint(1, 15)
        fraction = rng.randrange(10**digits)
        text = f"0.{fraction:0{digits}d}"
        assert parse_number(text) == 0.0 + float(fraction) / float(10**digits), text
    # Other forms take GEval's own steps, which a correctly rounded reading does not always match.
    assert parse_number("1.1e0") == (1.0 + 1.0 / 10.0) * 1.0
    assert parse_number("2.5e-3") == (2.0 + 5.0 / 10.0) * (1.0 / 1000.0)


@pytest.mark.parametrize(
    "line, token, reason",
    [
        ("a:0.5  b:0.5", "''", "empty token"),
        ("a:0.5 b:0.5 ", "''", "empty token"),
        ("a:0.5 b", "'b'", "colon expected"),
        ("a:.5 :0.5", "'a:.5'", "input does not start with a digit"),
        ("a:1. :0", "'a:1.'", "number text found after a number"),
        ("a:1e :0", "'a:1e'", "number text found after a number"),
        ("a:nan :0", "'a:nan'", "input does not start with a digit"),
    ],
)
def test_malformed_lines_name_file_line_and_token(tmp_path, line, token, reason):
    (tmp_path / "out.tsv").write_text(f"x:1\n{line}\n")
    (tmp_path / "expected.tsv").write_text("x\ny\n")
    with pytest.raises(LmgapError) as err:
        score_files(tmp_path / "out.tsv", tmp_path / "expected.tsv")
    message = str(err.value)
    assert message.startswith(f"{tmp_path / 'out.tsv'} line 2, token ") and token in message and reason in message


@pytest.mark.parametrize(
    "out, says",
    [("x:1\n", "has 1 lines but"), ("x:1\nx:1\nx:1\n", "has 3 lines but"), ("", "is empty")],
)
def test_line_counts_must_match(tmp_path, out, says):
    (tmp_path / "out.tsv").write_text(out)
    (tmp_path / "expected.tsv").write_text("x\ny\n")
    with pytest.raises(LmgapError, match=says):
        score_files(tmp_path / "out.tsv", tmp_path / "expected.tsv")


def test_invalid_utf8_names_the_line(tmp_path):
    (tmp_path / "out.tsv").write_bytes(b"x:1\n\xff:1\n")
    (tmp_path / "expected.tsv").write_text("x\ny\n")
    with pytest.raises(LmgapError, match=r"out.tsv line 2 is not valid UTF-8"):
        score_files(tmp_path / "out.tsv", tmp_path / "expected.tsv")


@pytest.mark.parametrize("tool", ["gzip", "bzip2", "xz"])
def test_a_compressed_file_is_read_as_geval_reads_it_decompressed(tmp_path, tool):
    # GEval undoes gzip, bzip2 and xz by a file's first bytes (Data.Conduit.AutoDecompress).
    out, expected = tmp_path / "out.tsv", tmp_path / "expected.tsv"
    out.write_text("A:0.6 B:0.4\nC:0.2 A:0.1\n")
    expected.write_text("A\nB\n")
    plain = score_files(out, expected)
    subprocess.run([tool, "-k", str(out), str(expected)], check=True)
    packed = {
        path: path.with_name(path.name + {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz"}[tool])
        for path in (out, expected)
    }
    assert score_files(packed[out], packed[expected]) == plain
    # Cut short: named as compressed and damaged, not as text that is not UTF-8.
    packed[out].write_bytes(packed[out].read_bytes()[:-8])
    with pytest.raises(LmgapError, match=rf"out.tsv.* is {tool}-compressed, but cut short or damaged"):
        score_files(packed[out], expected)


def test_an_expected_word_is_stripped_as_geval_strips_it_for_every_metric():
    # GEval's expectedParser for the hashed metrics is `onlyStrip` (Data.Text.strip): spaces, tabs and the Unicode
    # spaces around the word go, for the log loss as for the accuracy; a control character such as U+0085 stays.
    out = ["A:0.6 B:0.3 :0.1", "B:0.5 A:0.4 :0.1"]
    plain, _ = score_lines(out, ["A", "A"])
    assert score_lines(out, ["A  ", "\t\u00a0A\u3000"])[0] == plain
    assert score_lines(out, ["A\x85", "A"])[0] != plain


def test_command_prints_every_digit_and_refuses_bad_files(tmp_path):
    out, expected = tmp_path / "out.tsv", tmp_path / "expected.tsv"
    out.write_text("A:0.6 B:0.4\nC:0.2 A:0.1\nA:0.4 C:0.4\nD:1.0\nC:0.4 B:0.5 :0.1\n")
    expected.write_text("A\nA\nB\nD\nA\n")
    done = subprocess.run([LMGAP, "score", str(out), str(expected)], capture_output=True, text=True, check=True)
    printed = dict(line.split("\t") for line in done.stdout.splitlines())
    metrics, _ = score_files(out, expected)
    assert printed == {name: repr(value) for name, value in metrics.items()}
    assert digits_agree(float(printed["LogLossHashed"]), "4.11631293099392")
    eight = subprocess.run([LMGAP, "score", str(out), str(expected), "--bits", "8"], capture_output=True, text=True)
    assert eight.stdout.startswith("LogLossHashed8\t")
    # The two files the other way round: said, with the command that gives them in order.
    swapped = subprocess.run([LMGAP, "score", str(expected), str(out)], capture_output=True, text=True)
    assert swapped.returncode == 2 and swapped.stdout == ""
    assert f"{out} holds word:probability tokens and {expected} none: the two are given the other way" in swapped.stderr
    assert swapped.stderr.rstrip().endswith(f"lmgap score {out} {expected}")

    # A split's in.tsv given for its expected.tsv (its lines are documents, tab-separated): said, with the file.
    given = tmp_path / "in.tsv"
    given.write_text("".join(f"doc{number}\t1890\tleft context\tright context\n" for number in range(5)))
    wrong = subprocess.run([LMGAP, "score", str(out), str(given)], capture_output=True, text=True)
    assert wrong.returncode == 2 and wrong.stdout == ""
    assert wrong.stderr.rstrip().endswith(
        f"{given} line 1 holds 4 tab-separated columns, where an expected.tsv holds one gap word a line: is it the "
        f"split's in.tsv? lmgap score takes OUT_TSV, then the split's expected.tsv: give {expected}"
    )

    out.write_text("A:0.6  B:0.4\n" * 5)
    bad = subprocess.run([LMGAP, "score", str(out), str(expected)], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    assert f"{out} line 1, token 2 ''" in bad.stderr


def test_a_token_holding_a_tab_is_one_word_as_geval_reads_it_and_is_warned_about(tmp_path):
    # GEval splits a line at spaces alone: `x:0.5<TAB>y:0.4` is the word `x:0.5<TAB>y` with 0.4,
    # and with the rest mass 0.1 the listed total 0.5 is divided out (0.8 and 0.2).
    x, y = apart(10, 1, 2)
    joined = f"{x}:0.5\t{y}"
    assert bucket(joined, 10, 1) != bucket(x, 10, 1)
    _, (value,) = score_lines([f"{joined}:0.4 :0.1"], [x], 10)
    assert value == pytest.approx(math.log(0.2 / 1024), rel=1e-12)
    out, expected = tmp_path / "out.tsv", tmp_path / "expected.tsv"
    out.write_text(f"{joined}:0.4 :0.1\n{x}:1\n")
    expected.write_text(f"{x}\n{x}\n")
    done = subprocess.run([LMGAP, "score", str(out), str(expected)], capture_output=True, text=True, check=True)
    assert (
        f"lmgap score: warning: {out} has tokens holding a tab, line 1: GEval splits tokens at spaces alone"
        in done.stderr
    )
    assert float(dict(line.split("\t") for line in done.stdout.splitlines())["LogLossHashed"]) == pytest.approx(
        -value / 2
    )
