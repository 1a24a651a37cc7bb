"""The neural models' pieces against independent computations: the sliding window against
scoring chunks and prefixes one by one, word-level sums on a hand-worked example, and a tiny
model trained on a Markov chain against the chain's own perplexity."""

import hashlib
import io
import math
import random
import string

import numpy as np
import pytest

from conftest import MarkovSource
from lmgap.errors import LmgapError

torch = pytest.importorskip("torch")

from lmgap.neural.evaluate import document_sums, encode_line, score_text  # noqa: E402
from lmgap.neural.model import load, window_scorer  # noqa: E402
from lmgap.neural.tokenizer import normalised, train_tokenizer  # noqa: E402
from lmgap.neural.train import build_model, train  # noqa: E402
from lmgap.neural.window import score_windows, windows  # noqa: E402
from lmgap.neural.words import token_words, word_logprobs  # noqa: E402

TINY = {"layers": 1, "width": 32, "heads": 2, "context": 16}


def contexts(length, max_length, stride):
    """Each scored token's context length (tokens before it in its window), by position."""
    found = {}
    for start, end, first in windows(length, max_length, stride):
        for position in range(first, end):
            assert position not in found, "a token scored twice"
            found[position] = position - start
    return found


@pytest.mark.parametrize("max_length", [2, 3, 8, 16])
def test_every_token_but_the_first_is_scored_once_with_at_most_max_length_minus_one_context(max_length):
    for length in (2, 3, max_length - 1, max_length, max_length + 1, 5 * max_length + 3):
        if length < 2:
            continue
        for stride in range(1, max_length):
            found = contexts(length, max_length, stride)
            assert sorted(found) == list(range(1, length)), (length, stride)
            assert all(1 <= c <= max_length - 1 for c in found.values())
            for start, end, _ in windows(length, max_length, stride):
                assert end - start <= max_length


def test_stride_one_gives_every_token_all_the_context_the_window_holds():
    found = contexts(40, 8, 1)
    assert [found[p] for p in range(1, 40)] == [min(p, 7) for p in range(1, 40)]


@pytest.mark.parametrize("small,large", [(1, 2), (1, 7), (2, 4), (2, 6), (3, 6)])
def test_a_stride_that_divides_another_never_gives_a_token_less_context(small, large):
    fine, coarse = contexts(50, 8, small), contexts(50, 8, large)
    assert all(fine[p] >= coarse[p] for p in fine)
    assert any(fine[p] > coarse[p] for p in fine)


@pytest.mark.parametrize("stride", [0, 8, 9])
def test_a_stride_that_would_leave_tokens_unscored_is_refused_with_the_fix(stride):
    with pytest.raises(LmgapError, match="stride must be between 1 and 7"):
        windows(20, 8, stride)


@pytest.fixture(scope="module")
def random_model():
    torch.manual_seed(3)
    model = build_model({**TINY, "context": 8}, vocab_size=50, end_id=0)
    model.eval()
    return model


def full_logprobs(model, ids):
    """log P of each token after the first from one forward pass over ids, computed directly."""
    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([list(ids)])).logits[0].double()
    logprobs = torch.log_softmax(logits, dim=-1)
    return np.array([logprobs[i, ids[i + 1]].item() for i in range(len(ids) - 1)])


def test_the_largest_stride_scores_the_document_as_separate_chunks(random_model):
    # stride = max_length - 1: chunk k is tokens [7k, 7k + 8), the token shared by two chunks
    # being the last scored in one and the first (context only) in the next.
    rng = np.random.default_rng(1)
    for length in (2, 8, 9, 23, 36):
        ids = rng.integers(0, 50, size=length)
        chunks = [full_logprobs(random_model, ids[k : k + 8]) for k in range(0, length - 1, 7)]
        [got] = score_windows(window_scorer(random_model), [ids], 8, 7, batch_size=3)
        assert got.shape == (length - 1,)
        np.testing.assert_allclose(got, np.concatenate(chunks), rtol=0, atol=2e-6)


def test_stride_one_scores_each_token_with_its_whole_context(random_model):
    rng = np.random.default_rng(2)
    documents = [rng.integers(0, 50, size=n) for n in (2, 5, 8, 20)]
    got = score_windows(window_scorer(random_model), documents, 8, 1, batch_size=4)
    for ids, scores in zip(documents, got):
        # Token p alone, after the (at most 7) tokens before it: a forward pass per token.
        expected = [full_logprobs(random_model, ids[max(0, p - 7) : p + 1])[-1] for p in range(1, len(ids))]
        np.testing.assert_allclose(scores, expected, rtol=0, atol=2e-6)


def test_a_word_split_into_three_subword_tokens_gets_the_sum_of_their_log_probabilities():
    # "a unbelievable day": a | Ġun believ able | Ġday, then the end-of-text token as </s>.
    text = "a unbelievable day"
    offsets = [(0, 1), (1, 4), (4, 10), (10, 14), (14, 18)]
    owners = token_words(text, offsets)
    assert owners == [0, 1, 1, 1, 2]
    token_logprobs = np.array([-1.0, -2.0, -0.5, -0.25, -3.0, -1.5])
    per_word = word_logprobs(token_logprobs, owners + [3], 4)
    assert per_word.tolist() == [-1.0, -2.75, -3.0, -1.5]
    tokens, oovs, log10_prob, oov_sum = document_sums(token_logprobs, owners + [3], 3, set())
    assert (tokens, oovs, oov_sum) == (4, 0, 0.0)
    assert log10_prob == pytest.approx(-8.25 / math.log(10), rel=1e-15)
    # A tokenizer with an unknown token (a user's model that does not read bytes): the word
    # holding it is an OOV, its log-probability kept apart as query keeps an OOV's.
    tokens, oovs, log10_prob, oov_sum = document_sums(token_logprobs, owners + [3], 3, {1})
    assert (tokens, oovs) == (4, 1) and oov_sum == pytest.approx(-2.75 / math.log(10), rel=1e-15)


def test_a_word_without_a_token_is_an_error():
    with pytest.raises(LmgapError, match="every word must get at least one token"):
        word_logprobs(np.array([-1.0, -1.0]), [0, 2], 3)


def letters(index):
    return "".join(string.ascii_lowercase[(index // 26**k) % 26] for k in range(2))


@pytest.fixture(scope="module")
def markov(tmp_path_factory):
    """A tiny model trained on a second-order Markov chain of 10 words, and its test text."""
    root = tmp_path_factory.mktemp("markov")
    source = MarkovSource(vocab_size=10, successors=3, mix=0.1, end=0.08, seed=11)
    rng = random.Random(1)
    sentences = {
        "train": [source.sentence(rng) for _ in range(3000)],
        "test": [source.sentence(rng) for _ in range(300)],
    }
    # The training text's words, counted from the sentences written rather than from the file.
    (root / "train.words").write_text(str(sum(len(s) for s in sentences["train"])))
    for name, lines in sentences.items():
        (root / f"{name}.txt").write_text("".join(" ".join(letters(w) for w in s) + "\n" for s in lines))
    train_tokenizer(root / "train.txt", 300, root / "tokenizer.json")
    settings = {
        **TINY,
        "width": 64,
        "heads": 4,
        "context": 32,
        "batch_size": 32,
        "learning_rate": 0.005,
        "steps": 600,
        "seed": 1,
    }
    record = train(
        {"text": root / "train.txt", "tokenizer": root / "tokenizer.json"},
        settings,
        {"model": root / "model", "loss": root / "loss.tsv", "record": root / "training.json"},
        threads=2,
        log=io.StringIO(),
    )
    return root, source, sentences["test"], record


def test_a_tiny_model_trained_on_a_markov_chain_comes_within_ten_percent_of_its_perplexity(markov):
    root, source, test, record = markov
    model, tokenizer = load(root / "model")
    scores, subwords = score_text(root / "test.txt", tokenizer, window_scorer(model), 32, 16, 32)
    sums = scores.sums()
    assert sums["tokens"] == sum(len(s) + 1 for s in test) and sums["oovs"] == 0
    perplexity = 10 ** (-sums["log10_prob"] / sums["tokens"])
    # The source's own perplexity on the same text is the floor a model can reach, up to the
    # sample's luck; 600 steps (a few seconds) bring the model within 10% of it.
    assert 0.97 * source.perplexity(test) < perplexity < 1.10 * source.perplexity(test)
    # Every word is one token here, so the words and the end-of-text tokens are all there is.
    assert subwords == sums["tokens"]
    words = int((root / "train.words").read_text())
    assert record["training_text"] == {"lines": 3000, "words": words, "tokens": words + 3000}


def test_more_context_never_makes_the_trained_model_worse_than_a_rounding_error(markov):
    """What is checked: with an 8-token window on the Markov text, stride 7 leaves the second
    token of each window one word of context, fewer than the chain's two, and costs over 5%;
    strides 4, 2 and 1 give every token at least four and differ by under 0.5%, never higher by
    more, as more context than the chain's order carries no information."""
    root, source, _, _ = markov
    model, tokenizer = load(root / "model")
    # Long documents, so that the window slides: the test text's lines joined ten at a time.
    lines = (root / "test.txt").read_text().splitlines()
    (root / "long.txt").write_text("".join(" ".join(lines[i : i + 10]) + "\n" for i in range(0, len(lines), 10)))
    perplexity = {}
    for stride in (7, 4, 2, 1):
        sums = score_text(root / "long.txt", tokenizer, window_scorer(model), 8, stride, 64)[0].sums()
        perplexity[stride] = 10 ** (-sums["log10_prob"] / sums["tokens"])
    assert perplexity[4] < 0.95 * perplexity[7]
    for larger, smaller in ((4, 2), (2, 1)):
        assert perplexity[smaller] < 1.005 * perplexity[larger]


def test_training_is_deterministic_for_a_seed(tmp_path, markov):
    root = markov[0]
    settings = {**TINY, "batch_size": 4, "learning_rate": 0.005, "steps": 5, "seed": 7}
    digests = []
    for run in ("a", "b", "c"):
        seed = settings["seed"] if run != "c" else 8
        train(
            {"text": root / "train.txt", "tokenizer": root / "tokenizer.json"},
            {**settings, "seed": seed},
            {"model": tmp_path / run, "loss": tmp_path / f"{run}.tsv", "record": tmp_path / f"{run}.json"},
            threads=2,
            log=io.StringIO(),
        )
        digests.append(hashlib.sha256((tmp_path / run / "model.safetensors").read_bytes()).hexdigest())
    assert digests[0] == digests[1] != digests[2]


def test_words_are_what_kenlm_counts_and_the_tokenizer_covers_each(markov):
    root = markov[0]
    _, tokenizer = load(root / "model")
    # A no-break space is part of a word for KenLM; tabs and runs of spaces separate words.
    line = "aa\u00a0ba  unbelievable\tca zz-top"
    assert normalised(line) == "aa\u00a0ba unbelievable ca zz-top"
    ids, owners, words, unknown = encode_line(tokenizer, line)
    assert words == 4 and not unknown and ids[0] == ids[-1] == tokenizer.eos_token_id
    assert owners[-1] == 4 and sorted(set(owners)) == [0, 1, 2, 3, 4]
    # The rare words are split into several tokens, each owned by its word in order.
    assert owners.count(1) >= 3 and owners == sorted(owners)


def test_the_default_evaluation_batch_keeps_its_logits_within_512_mb():
    from lmgap.neural.settings import default_batch_size

    assert default_batch_size(4000, 128) == 16
    # GPT-2: 50,257 entries at 1,024 positions, 206 MB of logits a window.
    assert default_batch_size(50257, 1024) == 2
    assert default_batch_size(250000, 4096) == 1
