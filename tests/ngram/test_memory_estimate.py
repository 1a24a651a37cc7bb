"""The memory a train job reserves: the budget's arithmetic, the schedule it gives at the real
corpus's size, and the estimate against what was measured at that size. (Against models the
tests train: tests/pipeline/test_generator.py.)"""

import itertools

import pytest

from lmgap.errors import LmgapError
from lmgap.ngram.formats import probing_bytes
from lmgap.ngram.memory import (
    binaries_mb,
    builds_together,
    LMPLZ_MIN_MB,
    LMPLZ_WORKING_MB,
    binary_mb,
    estimated_counts,
    lmplz_memory_mb,
    lmplz_overhead_mb,
    lmplz_working_mb,
    text_tokens,
    train_job_mb,
)

# The real training split: 123.7M words on 432,022 lines (lmplz counts a `</s>` per line), 836 MB.
REAL_TOKENS, REAL_TEXT_MB = 123_700_000 + 432_022, 836
# This machine kind: 80% of 23.5 GiB; a 16 GB laptop's (memory.budget_mb: 12800).
BUDGET_24_GB, BUDGET_16_GB = 19_284, 12_800


@pytest.mark.parametrize("order", range(2, 8))
def test_every_reservation_holds_its_tools_and_fits_the_budget(order):
    for tokens, budget in itertools.product(
        [10, 10_000, 10**6, 10**7, REAL_TOKENS, 10**9], [64, 600, 4000, 12_800, 100_000]
    ):
        text_mb = max(tokens * 6.7 / 2**20, 1)
        fixed = binary_mb(order, tokens) + lmplz_overhead_mb(tokens)
        try:
            job = train_job_mb(order, tokens, text_mb, budget)
        except LmgapError as err:
            # Refused only when build_binary's model and the smallest lmplz cannot fit the budget.
            assert fixed + LMPLZ_MIN_MB > budget
            assert f"the {budget:,} MB a job may reserve. Raise memory.budget_mb" in str(err)
            continue
        lmplz = lmplz_memory_mb(job, order, tokens, text_mb)
        assert job <= budget and LMPLZ_MIN_MB <= lmplz <= LMPLZ_WORKING_MB
        # build_binary's part, lmplz's vocabulary and its -S, inside what the job reserved.
        assert fixed + lmplz <= job
        # -S below its working size only where the budget has no room for it.
        if lmplz < lmplz_working_mb(order, text_mb):
            assert job == budget


def test_the_real_corpus_trains_its_5_and_4_gram_side_by_side_on_24_gb_and_its_5_gram_alone_on_16():
    o3, o4, o5 = (train_job_mb(order, REAL_TOKENS, REAL_TEXT_MB, BUDGET_24_GB) for order in (3, 4, 5))
    assert o5 + o4 <= BUDGET_24_GB
    assert lmplz_memory_mb(o5, 5, REAL_TOKENS, REAL_TEXT_MB) == LMPLZ_WORKING_MB
    laptop = [train_job_mb(order, REAL_TOKENS, REAL_TEXT_MB, BUDGET_16_GB) for order in (3, 4, 5)]
    assert laptop == [o3, o4, o5]
    # Nothing runs beside the 5-gram on the laptop; the 4- and 3-gram run together.
    assert o5 + o3 > BUDGET_16_GB >= o5 and o4 + o3 <= BUDGET_16_GB


# Measured at the real corpus's size (BENCHMARKS.md, "Memory at the real corpus's size"): the
# 123.7M-word generated corpus, peak resident memory of each tool of each train job (MB).
# lmplz's peak only where it ran with -S at its working 1 GB.
MEASURED = {
    # Before the generator's fixed expressions (a run at commit ea9687e).
    "generated, no expressions": {"tokens": REAL_TOKENS, "build_binary": {5: 6039}, "lmplz": {5: 1076}},
    # With them: 123.7M words on 427,182 lines (benchmarks/schedule.py at ea9687e).
    "generated": {"tokens": 123_700_000 + 427_182, "build_binary": {3: 1339, 4: 3131, 5: 5470}, "lmplz": {5: 1052}},
}


@pytest.mark.parametrize("corpus", sorted(MEASURED))
def test_estimates_are_never_below_what_the_real_size_took(corpus):
    measured = MEASURED[corpus]
    tokens = measured["tokens"]
    for order, peak in measured["build_binary"].items():
        assert binary_mb(order, tokens) >= peak
    for order, peak in measured["lmplz"].items():
        assert LMPLZ_WORKING_MB + lmplz_overhead_mb(tokens) >= peak


def test_probing_size_of_a_hand_worked_model():
    # 3 types, 5 bigrams, 4 trigrams: the vocabulary's 8-byte header and 12 bytes per bucket
    # (max(4, int(1.5 * 3)) = 4 buckets), 4 unigrams of 8 bytes (with <unk>), 7 bigram buckets
    # of 16 bytes, 6 trigram buckets of 12 bytes.
    assert probing_bytes([3, 5, 4]) == 8 + 12 * 4 + 8 * 4 + 16 * 7 + 12 * 6
    # One entry: one more bucket than entries, never fewer.
    assert probing_bytes([1, 1]) == 8 + 12 * 2 + 8 * 2 + 12 * 2


def test_estimated_counts_follow_the_stated_shares():
    assert estimated_counts(6, 10**6) == [100_000, 550_000, 850_000, 970_000, 10**6, 10**6]
    assert estimated_counts(2, 10) == [10, 5]


@pytest.mark.parametrize("ending", ["\n", ""])
def test_text_tokens_counts_words_and_an_end_per_line(tmp_path, ending):
    text = tmp_path / "text.txt"
    lines = ["a b c", "d", "e\tf g h", "i j"]
    text.write_text("\n".join(lines) + ending)
    assert text_tokens(text, block=3) == sum(len(line.split()) + 1 for line in lines) == 14


def test_formats_that_do_not_fit_the_budget_together_are_built_one_after_another():
    formats = ["probing", "trie", "trie-q8b8"]
    # The real 5-gram in three formats: together past the 24 GB machine's budget, so one at a time, the
    # largest (probing) reserved; the 3-gram's fit together.
    o5 = train_job_mb(5, REAL_TOKENS, REAL_TEXT_MB, BUDGET_24_GB, formats)
    assert not builds_together(5, REAL_TOKENS, REAL_TEXT_MB, o5, formats)
    assert o5 == binary_mb(5, REAL_TOKENS) + lmplz_overhead_mb(REAL_TOKENS) + LMPLZ_WORKING_MB
    o3 = train_job_mb(3, REAL_TOKENS, REAL_TEXT_MB, BUDGET_24_GB, formats)
    assert builds_together(3, REAL_TOKENS, REAL_TEXT_MB, o3, formats)
    assert o3 == binaries_mb(3, REAL_TOKENS, formats) + lmplz_overhead_mb(REAL_TOKENS) + LMPLZ_WORKING_MB
    # The job reads the same decision from what it was given, and lmplz its -S.
    assert lmplz_memory_mb(o5, 5, REAL_TOKENS, REAL_TEXT_MB, formats) == LMPLZ_WORKING_MB
    # The quantised trie alone: on the 16 GB budget the 5-gram trains beside the 4-gram, where the probing
    # 5-gram trains alone.
    o3, o4, o5 = (train_job_mb(order, REAL_TOKENS, REAL_TEXT_MB, BUDGET_16_GB, ["trie-q8b8"]) for order in (3, 4, 5))
    probing = [train_job_mb(order, REAL_TOKENS, REAL_TEXT_MB, BUDGET_16_GB) for order in (3, 5)]
    assert o5 + o4 <= BUDGET_16_GB < sum(probing)
