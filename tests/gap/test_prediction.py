"""Gap prediction: candidates against brute-force counts, scores against query run by hand, and
predictions against the exact gap distribution of a known source."""

import functools
import os
import subprocess
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

from lmgap.corpus.rebuild import read_contexts, rebuild_split
from lmgap.errors import LmgapError
from lmgap.files import DamagedRecord
from lmgap.gap import candidates
from lmgap.gap.candidate_sets import CandidateSets
from lmgap.gap.candidates import build_candidates, line_spans, write_candidates
from lmgap.gap.lines import format_line, read_gaps
from lmgap.gap.coverage import share
from lmgap.gap.evaluate import evaluate
from lmgap.gap.geval import score_files
from lmgap.gap.heldout import heldout_line_numbers, read_heldout, write_heldout
from lmgap.gap.sources import FLAG
from lmgap.gap.predict import load_model, score_candidates, write_scores
from lmgap.gap.submission import normalised, write_model_predictions
from generate_corpus import END, START, MarkovSource, write_corpus


class Log:
    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text


def train_model(kenlm_bin, text, order, binary, tmp_path):
    subprocess.run(
        f"{kenlm_bin / 'lmplz'} -o {order} --skip_symbols --discount_fallback -S 256M -T {tmp_path}/ "
        f"< {text} 2>/dev/null | {kenlm_bin / 'build_binary'} /dev/stdin {binary} > /dev/null 2>&1",
        shell=True,
        check=True,
    )


@pytest.fixture(scope="module")
def markov(tmp_path_factory, kenlm_bin):
    """A second-order Markov source, a corpus drawn from it and a trigram model of its training text."""
    root = tmp_path_factory.mktemp("markov")
    source = MarkovSource(vocab_size=30, successors=5, mix=0.1, end=0.08, seed=11)
    write_corpus(root / "corpus", source, train_sentences=20000, dev_sentences=500, seed=11)
    rebuild_split(root / "corpus/train", root / "train.txt")
    train_model(kenlm_bin, root / "train.txt", 3, root / "model.binary", root)
    return root, source


def brute_force_counts(text_lines):
    """The five context sources of every word position, counted with plain Counters."""
    counts = {name: Counter() for name in ("after2", "after1", "before2", "before1", "between")}
    for line in text_lines:
        words = [b"<s>", b"<s>", *line.split(), b"</s>", b"</s>"]
        for i in range(2, len(words) - 2):
            w = words[i]
            counts["after2"][(words[i - 2], words[i - 1]), w] += 1
            counts["after1"][words[i - 1], w] += 1
            counts["before2"][(words[i + 1], words[i + 2]), w] += 1
            counts["before1"][words[i + 1], w] += 1
            counts["between"][(words[i - 1], words[i + 1]), w] += 1
    return counts


def assert_same_candidates(many, one, workers):
    """The candidate sets of a pass by `workers` processes, word for word and bit for bit one's."""
    assert many.words == one.words
    for name in ("offsets", "ids", "flags"):
        assert np.array_equal(getattr(many, name), getattr(one, name)), (workers, name)


@pytest.mark.parametrize("workers", [1, 3])
def test_candidates_are_the_most_frequent_continuations_counted_by_hand(workers, tmp_path):
    source = MarkovSource(vocab_size=40, successors=6, mix=0.2, seed=3)
    write_corpus(tmp_path / "corpus", source, train_sentences=600, dev_sentences=40, seed=3)
    rebuild_split(tmp_path / "corpus/train", tmp_path / "train.txt")
    lines = (tmp_path / "train.txt").read_bytes().splitlines()
    skip = {5, 17, 300}
    counts = brute_force_counts([line for n, line in enumerate(lines, start=1) if n not in skip])
    documents = read_gaps(tmp_path / "corpus/dev-0")
    # The two left words nearest the gap and the two right words, padded as brute_force_counts pads.
    gaps = [
        tuple([b"<s>", b"<s>", *left.split()][-2:] + [*right.split(), b"</s>", b"</s>"][:2])
        for left, right in documents
    ]
    per_context, frequent = 4, 3
    found = build_candidates(tmp_path / "train.txt", documents, skip, per_context, frequent, workers)
    unigram = Counter(w for line in (text for n, text in enumerate(lines, 1) if n not in skip) for w in line.split())
    top_words = {w for w, c in unigram.items() if c > sorted(unigram.values())[-frequent - 1]}
    for gap, (a2, a1, c1, c2) in enumerate(gaps):
        ids, flags = found.of(gap)
        words = [found.words[i] for i in ids.tolist()]
        assert len(set(words)) == len(words)
        by_source = {
            name: {w for w, f in zip(words, flags) if f & (1 << bit)}
            for bit, name in enumerate(
                ("after2", "after1", "before2", "before1", "between", "frequent", "document_left", "document_right")
            )
        }
        assert top_words <= by_source["frequent"] and len(by_source["frequent"]) == frequent
        # Every word of the gap's own contexts, whether the training text shows it or not.
        left, right = documents[gap]
        assert by_source["document_left"] == set(left.split())
        assert by_source["document_right"] == set(right.split())
        keys = {"after2": (a2, a1), "after1": a1, "before2": (c1, c2), "before1": c1, "between": (a1, c1)}
        for name, key in keys.items():
            seen = {w: c for (k, w), c in counts[name].items() if k == key}
            chosen = by_source[name]
            assert len(chosen) == min(per_context, len(seen)), (gap, name)
            assert chosen <= set(seen)
            # Nothing left out was seen more often than something kept.
            if chosen and set(seen) - chosen:
                assert min(seen[w] for w in chosen) >= max(seen[w] for w in set(seen) - chosen)


def test_forked_copies_counting_spans_of_the_text_give_one_pass_s_candidates(tmp_path):
    source = MarkovSource(vocab_size=300, successors=8, mix=0.3, seed=6)
    write_corpus(tmp_path / "corpus", source, train_sentences=900, dev_sentences=30, seed=6)
    rebuild_split(tmp_path / "corpus/train", tmp_path / "train.txt")
    data = (tmp_path / "train.txt").read_bytes()
    lines = data.splitlines(keepends=True)
    for workers in (2, 3, 7):
        spans = line_spans(tmp_path / "train.txt", workers)
        assert len(spans) == workers and spans[0][0] == 0 and spans[-1][1] == len(data)
        for (start, end, number), (after, _, next_number) in zip(spans, spans[1:]):
            assert end == after and data[end - 1 : end] == b"\n"
            assert next_number == number + data[start:end].count(b"\n")
            assert b"".join(lines[next_number - 1 :]) == data[after:]
    # Lines left out on either side of where the text is cut in two and in seven.
    cuts = [number for _, _, number in line_spans(tmp_path / "train.txt", 2) + line_spans(tmp_path / "train.txt", 7)]
    skip = {1, 9, *cuts, *(n - 1 for n in cuts[1:]), len(lines)}
    documents = read_gaps(tmp_path / "corpus/dev-0")
    one = build_candidates(tmp_path / "train.txt", documents, skip, 5, 20)
    for workers in (2, 3, 7):
        assert_same_candidates(build_candidates(tmp_path / "train.txt", documents, skip, 5, 20, workers), one, workers)


def test_candidates_do_not_depend_on_how_the_counts_are_merged(tmp_path, monkeypatch):
    source = MarkovSource(vocab_size=300, successors=8, mix=0.3, seed=8)
    write_corpus(tmp_path / "corpus", source, train_sentences=900, dev_sentences=30, seed=8)
    rebuild_split(tmp_path / "corpus/train", tmp_path / "train.txt")
    documents = read_gaps(tmp_path / "corpus/dev-0")
    one = build_candidates(tmp_path / "train.txt", documents, {4, 40}, 5, 20)
    # Blocks of a few lines, each merged into the counts at once: hundreds of merges, and tied
    # counts kept in the order of the words' first appearance throughout.
    monkeypatch.setattr(candidates, "MERGE_EVERY", 0)
    monkeypatch.setattr(candidates, "count_span", functools.partial(candidates.count_span, block_bytes=500))
    for workers in (1, 3):
        assert_same_candidates(
            build_candidates(tmp_path / "train.txt", documents, {4, 40}, 5, 20, workers), one, workers
        )


def test_tied_counts_keep_the_order_of_first_appearance_across_spans(tmp_path):
    # Y comes before X in the text, and after the gap's left word once each, in the second half
    # only: the copy counting that half meets X first.
    (tmp_path / "train.txt").write_bytes(b"q Y q\nq X q\n" + b"q q q\n" * 50 + b"b X\nb Y\n")
    for workers in (1, 2):
        found = build_candidates(tmp_path / "train.txt", [(b"a b", b"c d")], set(), 1, 0, workers)
        ids, flags = found.of(0)
        after1 = [found.words[i] for i, flag in zip(ids.tolist(), flags.tolist()) if flag & FLAG["after1"]]
        assert after1 == [b"Y"], workers


def test_a_counting_copy_that_dies_stops_the_pass_with_its_exit_code(tmp_path, monkeypatch):
    source = MarkovSource(vocab_size=40, successors=6, seed=7)
    write_corpus(tmp_path / "corpus", source, train_sentences=200, dev_sentences=10, seed=7)
    rebuild_split(tmp_path / "corpus/train", tmp_path / "train.txt")
    monkeypatch.setattr(candidates, "_count_in_copy", lambda *args: os._exit(3))
    with pytest.raises(RuntimeError, match=r"the process counting bytes \d+ to \d+ of .* exit code 3"):
        build_candidates(tmp_path / "train.txt", read_gaps(tmp_path / "corpus/dev-0"), set(), 5, 5, 2)


def test_heldout_lines_are_spread_and_never_counted(tmp_path):
    assert heldout_line_numbers(1000, 4) == [126, 376, 626, 876]
    assert heldout_line_numbers(30, 4000) == [6, 16, 26]  # at most a tenth of the lines
    source = MarkovSource(vocab_size=40, successors=6, seed=4)
    write_corpus(tmp_path / "corpus", source, train_sentences=200, dev_sentences=10, seed=4)
    rebuild_split(tmp_path / "corpus/train", tmp_path / "train.txt")
    # A word only a held-out line holds can never become a candidate.
    lines = (tmp_path / "train.txt").read_bytes().splitlines(keepends=True)
    held = heldout_line_numbers(len(lines), 5)
    lines[held[0] - 1] = lines[held[0] - 1].replace(b" ", b" only-held-out ", 1)
    (tmp_path / "train.txt").write_bytes(b"".join(lines))
    write_heldout(tmp_path / "corpus/train", 5, tmp_path / "h.tsv", tmp_path / "g.tsv")
    assert [number for number, _, _, _ in read_heldout(tmp_path / "h.tsv")] == held
    found = build_candidates(tmp_path / "train.txt", read_gaps(tmp_path / "corpus/dev-0"), set(held), 1000, 1000)
    assert b"only-held-out" not in found.words
    expected = (tmp_path / "corpus/train/expected.tsv").read_bytes().splitlines()
    gap_words = dict(line.split(b"\t") for line in (tmp_path / "g.tsv").read_bytes().splitlines())
    kept = Counter(w for n, w in enumerate(expected, start=1) if n not in held)
    assert {w: int(c) for w, c in gap_words.items()} == dict(kept)


def test_coverage_share_is_shrunk_towards_the_overall_rate():
    # 48 hits in 98 gaps: (48 + 1) / (98 + 2) = 0.49 overall; 20 pseudo-gaps at that rate join
    # each level: level 0 (0 of 10) gives 9.8 / 30, level 3 (48 of 88) 57.8 / 108, and a level
    # without held-out gaps the overall rate.
    table = {"both": {"gaps": 98, "hits": 48, "levels": {"0": [0, 10], "3": [48, 88]}}}
    assert share(table, "both", 0) == pytest.approx(9.8 / 30)
    assert share(table, "both", 3) == pytest.approx(57.8 / 108)
    assert share(table, "both", 2) == pytest.approx(0.49)


def test_a_line_lists_top_k_in_order_and_p0_takes_the_rest():
    line, listed, p0 = format_line(["a", "b", "c"], np.array([0.2, 0.5, 0.3]), 2, 0.9)
    assert line == f"b:0.45 c:0.27 :{1 - 0.45 - 0.27:.10g}" and listed == 2
    assert p0 == pytest.approx(0.28)
    # A candidate whose probability underflowed to zero is left out: `word:0` says nothing.
    scores = np.array([0.0, -400.0], dtype=np.float32)
    assert format_line(["a", "b"], normalised(scores), 2, 0.5)[:2] == ("a:0.5 :0.5", 1)


def test_a_line_whose_rounded_words_pass_the_whole_mass_leaves_p0_at_zero_or_more():
    # Worked by hand: 0.5000001 and 0.4999996 round to 0.5 each, which with 3e-07 pass 1; listed at
    # 1 - 5e-6 of their mass they round to 0.499998, 0.499997 and 2.99998e-07, and p0 takes 4.7e-06.
    line, _, p0 = format_line(["a", "b", "c"], np.array([0.4999996, 0.5000001, 0.0000003]), 3, 1.0)
    assert line == "b:0.499998 a:0.499997 c:2.99998e-07 :4.700002e-06" and p0 >= 0
    # Where rounding leaves p0 at 0 or above, the line is as it always was.
    assert format_line(["a"], np.array([1 / 3]), 1, 1.0)[0] == f"a:0.333333 :{1 - 0.333333:.10g}"


def query_totals(kenlm_bin, model, lines):
    """query's log10 total of each line (-v sentence), run by hand."""
    done = subprocess.run(
        [str(kenlm_bin / "query"), "-v", "sentence", str(model)],
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        check=True,
    )
    return [float(line.split("Total: ")[1].split()[0]) for line in done.stdout.splitlines() if "Total: " in line]


@pytest.mark.parametrize("order", [3, 5])
def test_scores_differ_as_query_on_the_whole_line_does(markov, kenlm_bin, order, tmp_path):
    root, _ = markov
    model = root / "model.binary" if order == 3 else tmp_path / "model5.binary"
    if order == 5:
        train_model(kenlm_bin, root / "train.txt", 5, model, tmp_path)
    words = [b"w0", b"w3", b"w7", b"w12", b"w29"]
    # Long contexts, a right context shorter than the order (its </s> depends on the word),
    # a gap at the start of the line and one at its end.
    contexts = [
        (b"w1 w2 w3 w4 w5 w6", b"w7 w8 w9 w10 w11"),
        (b"w1 w2", b"w5"),
        (b"", b"w5 w6 w7 w8"),
        (b"w9 w8 w7", b""),
    ]
    offsets = np.arange(0, len(words) * (len(contexts) + 1), len(words))
    candidates = CandidateSets(
        words,
        offsets,
        np.tile(np.arange(len(words)), len(contexts)),
        np.ones(len(words) * len(contexts), dtype=np.uint8),
    )
    left, right = score_candidates(model, contexts, candidates, workers=2)
    for gap, (before, after) in enumerate(contexts):
        lines = [b" ".join(filter(None, [before, w, after])).decode() for w in words]
        totals = query_totals(kenlm_bin, model, lines)
        scored = left[gap * 5 : (gap + 1) * 5].astype(float) + right[gap * 5 : (gap + 1) * 5]
        # Candidates' scores differ by exactly what query's totals differ by (single precision).
        assert np.allclose(scored - scored[0], np.array(totals) - totals[0], atol=2e-5), (gap, scored, totals)


def test_predictions_approach_the_exact_gap_distribution_of_the_source(markov, tmp_path):
    root, source = markov
    write_heldout(root / "corpus/train", 1000, tmp_path / "heldout.tsv", tmp_path / "words.tsv")
    log = Log()
    write_candidates(
        {"text": root / "train.txt", "split_dir": root / "corpus/dev-0", "heldout": tmp_path / "heldout.tsv"},
        {"per_context": 400, "frequent": 400, "workers": 2},
        SimpleNamespace(candidates=tmp_path / "c.npz", coverage=tmp_path / "coverage.json"),
        log,
    )
    write_scores(
        SimpleNamespace(binary=root / "model.binary", candidates=tmp_path / "c.npz"),
        root / "corpus/dev-0",
        2,
        SimpleNamespace(logprobs=tmp_path / "s.npz"),
        log,
    )
    write_model_predictions(
        SimpleNamespace(
            candidates=tmp_path / "c.npz", logprobs=tmp_path / "s.npz", coverage=tmp_path / "coverage.json"
        ),
        {"variant": "both", "top_k": 100},
        SimpleNamespace(out=tmp_path / "out.tsv", stats=tmp_path / "stats.json"),
    )
    predicted = score_files(tmp_path / "out.tsv", root / "corpus/dev-0/expected.tsv")[0]["PerplexityHashed"]

    # The source's own gap distribution: P(w | left, right) is proportional to P(w | two left
    # words) times the probabilities of the two right words (or the end) that see w.
    index = {word: i for i, word in enumerate(source.words)}
    oracle = []
    for left, right in (pair for block in read_contexts(root / "corpus/dev-0") for pair in block):
        context = (START, START)
        for token in left.split():
            context = (context[1], index[token.decode()])
        after = [index[token.decode()] for token in right.split()][:2]
        weights = []
        for w in range(len(source.words)):
            p, c = source.probability(w, context), (context[1], w)
            for r in after:
                p, c = p * source.probability(r, c), (c[1], r)
            weights.append(p * (source.probability(END, c) if len(after) < 2 else 1.0))
        oracle.append(" ".join(f"{word}:{weight / sum(weights)!r}" for word, weight in zip(source.words, weights)))
    (tmp_path / "oracle.tsv").write_text("\n".join(oracle) + "\n")
    exact = score_files(tmp_path / "oracle.tsv", root / "corpus/dev-0/expected.tsv")[0]["PerplexityHashed"]
    # Within 5% of the source's own distribution, and not meaningfully better than it.
    assert 0.99 * exact <= predicted <= 1.05 * exact, (predicted, exact)


@pytest.mark.parametrize(
    "data", [b"", os.urandom(4096), b"\xff\xfe not a model\n"], ids=["empty", "random", "not UTF-8"]
)
def test_a_model_binary_that_is_no_model_is_named_with_the_fix(tmp_path, data):
    folder = tmp_path / "results/models/o3"
    folder.mkdir(parents=True)
    (folder / "model.binary").write_bytes(data)
    with pytest.raises(LmgapError, match=r"the kenlm Python module cannot load .*model.binary: .*delete"):
        load_model(folder / "model.binary")


def test_a_prediction_of_the_pipeline_s_cut_short_is_named_as_damaged_not_as_a_user_s_file(tmp_path):
    out, expected = tmp_path / "out.tsv", tmp_path / "expected.tsv"
    out.write_text("the:0.5 :0.5\n")
    expected.write_text("the\nend\n")
    outputs = SimpleNamespace(metrics=tmp_path / "m.json", lines=tmp_path / "l.tsv")
    with pytest.raises(DamagedRecord) as err:
        evaluate(SimpleNamespace(out=out, candidates=[]), expected, "both", outputs)
    assert str(err.value) == (
        f"{out} is damaged (has 1 lines but {expected} has 2 (GEval: too few lines in the output file)): delete it, "
        "and run the pipeline again to write it anew"
    )
    assert not outputs.metrics.exists()
