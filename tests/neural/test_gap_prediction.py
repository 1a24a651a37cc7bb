"""Neural gap prediction against direct computations: a causal model's batched, cached rescoring
against one forward pass over each whole line, and a masked model's prediction against its own
fill-mask pipeline, each model saved with save_pretrained and loaded as a user's `path:` is."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from lmgap.gap.geval import parse_line

torch = pytest.importorskip("torch")

from lmgap.neural.masked import MaskedPredictor, load_masked, whole_words, write_masked  # noqa: E402
from lmgap.neural.model import load  # noqa: E402
from lmgap.neural.rescore import Rescorer, base_candidates, rescored_words, write_rescored  # noqa: E402
from tiny_models import save_causal_model, save_masked_model  # noqa: E402

TEXT = [
    "the old mill stood by the river and the farmers brought their corn to it",
    "a new railroad was built across the county in the spring of that year",
    "the editor of the paper wrote that the town council had met on monday",
] * 40
GAPS = [
    ("the old mill stood by the", ["river", "road", "mill", "unbelievably"], "and the farmers brought their corn"),
    ("", ["the", "a", "railroad"], "new railroad was built"),
    ("the editor of the paper wrote that the town", ["council", "paper"], ""),
    ("a new railroad was", ["built", "the"], "across"),
]


@pytest.fixture(scope="module")
def causal(tmp_path_factory):
    folder = tmp_path_factory.mktemp("causal")
    save_causal_model(folder, TEXT, vocab_size=300, positions=64)
    return load(str(folder))


def direct(model, tokenizer, left, word, right, right_tokens):
    """Natural-log P(word + the first right_tokens tokens of right | left) from one forward pass over
    the tokens of the whole line `left word right`, its word's and right tokens found by offsets."""
    line = " ".join(part for part in (left, word, right) if part)
    encoded = tokenizer(line, add_special_tokens=False, return_offsets_mapping=True)
    # A token belongs to the word or the right context that its last character belongs to (the
    # space before a word goes with it).
    ids, offsets = encoded["input_ids"], encoded["offset_mapping"]
    first = next(k for k, (start, end) in enumerate(offsets) if end > len(left))
    right_start = len(left) + bool(left) + len(word)
    after = next((k for k, (start, end) in enumerate(offsets) if end > right_start), len(ids))
    scored = ids[first:after] + ids[after : after + right_tokens]
    if len(ids) - after < right_tokens:
        scored.append(tokenizer.eos_token_id)
    sequence = [tokenizer.eos_token_id, *ids[:first], *scored]
    with torch.inference_mode():
        logprobs = torch.log_softmax(model(input_ids=torch.tensor([sequence])).logits[0].double(), dim=-1)
    start = 1 + first
    return sum(logprobs[k - 1, sequence[k]].item() for k in range(start, len(sequence)))


@pytest.mark.parametrize("right_tokens", [0, 1, 3, 8])
def test_cached_batched_rescoring_equals_one_forward_pass_over_each_line(causal, right_tokens):
    model, tokenizer = causal
    rescorer = Rescorer(model, tokenizer, 64, right_tokens)
    # Batches of two candidates: every gap's candidates span more than one cache copy.
    rescorer.batch_positions = 2 * (12 + right_tokens)
    for left, words, right in GAPS:
        got = rescorer.score(left, words, right)
        expected = [direct(model, tokenizer, left, word, right, right_tokens) for word in words]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)


def test_a_left_context_longer_than_the_window_keeps_its_nearest_tokens(causal):
    model, tokenizer = causal
    left = " ".join(TEXT[:6])
    rescorer = Rescorer(model, tokenizer, 32, 2)
    got = rescorer.score(left, ["river", "the"], "and the")
    for word, value in zip(["river", "the"], got):
        continuation = tokenizer(" " + word, add_special_tokens=False)["input_ids"]
        following = tokenizer(" and the", add_special_tokens=False)["input_ids"][:2]
        longest = max(len(tokenizer(" " + w, add_special_tokens=False)["input_ids"]) for w in ["river", "the"]) + 2
        kept = [tokenizer.eos_token_id, *tokenizer(left, add_special_tokens=False)["input_ids"]][-(32 - longest) :]
        sequence = kept + continuation + following
        assert len(sequence) <= 32
        with torch.inference_mode():
            logprobs = torch.log_softmax(model(input_ids=torch.tensor([sequence])).logits[0].double(), dim=-1)
        expected = sum(logprobs[k - 1, sequence[k]].item() for k in range(len(kept), len(sequence)))
        assert value == pytest.approx(expected, abs=1e-5)


def test_the_rescored_words_keep_the_mass_the_n_gram_gave_them(causal, tmp_path):
    model, tokenizer = causal
    split = tmp_path / "split"
    split.mkdir()
    import lzma

    with lzma.open(split / "in.tsv.xz", "wt") as handle:
        for left, _, right in GAPS:
            handle.write(f"{left}\t{right}\n")
    base = tmp_path / "base.tsv"
    base.write_text(
        "".join(
            " ".join(f"{w}:{0.2 / (k + 1):.6g}" for k, w in enumerate(words))
            + f" :{1 - sum(0.2 / (k + 1) for k in range(len(words))):.10g}\n"
            for _, words, _ in GAPS
        )
    )
    out, stats = tmp_path / "out.tsv", tmp_path / "stats.json"
    with open(tmp_path / "log", "w") as log:
        write_rescored(
            Rescorer(model, tokenizer, 64, 3),
            split,
            {"base": base, "document": None},
            {"candidates": 3, "document_words": 5, "top_k": 100},
            SimpleNamespace(out=out, stats=stats),
            log,
        )
    for (left, words, right), base_line, line in zip(GAPS, base.read_text().splitlines(), out.read_text().splitlines()):
        chosen, mass = base_candidates(base_line, 3)
        assert chosen == words[:3]
        listed = {word: value for word, value in parse_line(line) if word is not None}
        assert sum(listed.values()) == pytest.approx(mass, abs=1e-5)
        scores = Rescorer(model, tokenizer, 64, 3).score(left, chosen, right)
        weights = np.exp(scores - scores.max())
        for word, weight in zip(chosen, weights / weights.sum()):
            assert listed[word] == pytest.approx(mass * weight, rel=1e-5)


def test_the_document_words_join_the_rescored_ones_with_the_mass_the_n_gram_gave_them():
    base = "the:0.3 a:0.2 smith:0.05 of:0.01 :0.44"
    document = "smith:0.4 the:0.2 jones:0.1 mill:0.05 :0.25"
    # The base's two best, then the document's best two it lacks: smith (listed by the base at
    # 0.05) and jones (not listed: no mass).
    words, mass = rescored_words(base, 2, document, 2)
    assert words == ["the", "a", "smith", "jones"]
    assert mass == pytest.approx(0.55)
    assert rescored_words(base, 2, document, 0) == (["the", "a"], pytest.approx(0.5))
    assert rescored_words(base, 2) == (["the", "a"], pytest.approx(0.5))


@pytest.fixture(scope="module")
def masked(tmp_path_factory):
    folder = tmp_path_factory.mktemp("masked")
    save_masked_model(folder, TEXT, vocab_size=200, positions=64)
    return load_masked(str(folder))


def test_whole_words_are_the_tokens_a_word_alone_becomes(masked):
    _, tokenizer = masked
    ids, words = whole_words(tokenizer)
    assert len(words) == len(set(words)) > 20
    for token, word in zip(ids.tolist(), words):
        assert not word.startswith("##") and tokenizer(word, add_special_tokens=False)["input_ids"] == [token]
    pieces = [
        t for t, name in enumerate(tokenizer.convert_ids_to_tokens(range(len(tokenizer)))) if name.startswith("##")
    ]
    assert pieces and not set(pieces) & set(ids.tolist())


def test_the_masked_prediction_is_the_models_own_fill_mask_output(masked):
    from transformers import pipeline

    model, tokenizer = masked
    predictor = MaskedPredictor(model, tokenizer, 64, batch_size=3)
    fill = pipeline("fill-mask", model=model, tokenizer=tokenizer, top_k=len(tokenizer))
    windows = [predictor.window(left, right) for left, _, right in GAPS]
    for (left, _, right), probabilities in zip(GAPS, predictor.probabilities(windows)):
        text = " ".join(part for part in (left, tokenizer.mask_token, right) if part)
        expected = {found["token"]: found["score"] for found in fill(text)}
        for token, value in zip(predictor.token_ids.tolist(), probabilities):
            assert value == pytest.approx(expected[token], rel=1e-5, abs=1e-9)


def test_a_long_gap_window_keeps_the_mask_and_the_nearest_tokens(masked):
    model, tokenizer = masked
    predictor = MaskedPredictor(model, tokenizer, 24, batch_size=2)
    left, right = " ".join(TEXT[:3]), " ".join(TEXT[3:6])
    window, at = predictor.window(left, right)
    assert len(window) == 24 and window.count(tokenizer.mask_token_id) == 1
    assert window[at] == tokenizer.mask_token_id
    left_ids = tokenizer(left, add_special_tokens=False)["input_ids"]
    right_ids = tokenizer(right, add_special_tokens=False)["input_ids"]
    assert window[1:at] == left_ids[-(at - 1) :] and window[at + 1 : -1] == right_ids[: len(window) - at - 2]
    # A short right context gives its room to the left.
    window, _ = predictor.window(left, "corn")
    assert len(window) == 24 and window[-3:-1] == [
        tokenizer.mask_token_id,
        *tokenizer("corn", add_special_tokens=False)["input_ids"],
    ]


def test_a_masked_out_tsv_lists_top_k_words_and_leaves_the_rest_to_p0(masked, tmp_path):
    model, tokenizer = masked
    import lzma

    split = tmp_path / "split"
    split.mkdir()
    with lzma.open(split / "in.tsv.xz", "wt") as handle:
        handle.writelines(f"{left}\t{right}\n" for left, _, right in GAPS)
    predictor = MaskedPredictor(model, tokenizer, 64, batch_size=3)
    with open(tmp_path / "log", "w") as log:
        write_masked(predictor, split, 5, SimpleNamespace(out=tmp_path / "out.tsv", stats=tmp_path / "stats.json"), log)
    windows = [predictor.window(left, right) for left, _, right in GAPS]
    for line, probabilities in zip((tmp_path / "out.tsv").read_text().splitlines(), predictor.probabilities(windows)):
        specs = parse_line(line)
        assert len(specs) == 6 and specs[-1][0] is None
        best = sorted(zip(-probabilities, predictor.words))[:5]
        assert [word for word, _ in specs[:5]] == [word for _, word in best]
        assert specs[-1][1] == pytest.approx(1 - sum(value for _, value in specs[:5]), abs=1e-9)
        assert specs[-1][1] > 1 - math.fsum(-p for p, _ in best) - 1e-5


def test_a_context_holding_the_mask_token_keeps_the_gap_at_its_own_mask(masked):
    model, tokenizer = masked
    predictor = MaskedPredictor(model, tokenizer, 64, batch_size=2)
    window, at = predictor.window(f"the old {tokenizer.mask_token} stood by the", "and the farmers")
    assert window.count(tokenizer.mask_token_id) == 2 and window[at] == tokenizer.mask_token_id
    assert window.index(tokenizer.mask_token_id) < at


def test_a_roberta_style_model_reads_two_positions_fewer_than_it_embeds(tmp_path):
    from lmgap.neural.settings import saved_config

    (tmp_path / "config.json").write_text(
        '{"model_type": "roberta", "max_position_embeddings": 514, "pad_token_id": 1, "vocab_size": 50265}'
    )
    assert saved_config(tmp_path) == (512, 50265)
    (tmp_path / "config.json").write_text('{"model_type": "bert", "max_position_embeddings": 512, "vocab_size": 30522}')
    assert saved_config(tmp_path) == (512, 30522)
