"""The memory a train job reserves, and how it splits it between lmplz and build_binary."""

import itertools

import pytest

from lmgap.errors import LmgapError
from lmgap.models import LMPLZ_MIN_MB, binary_mem_mb, fraction_label, lmplz_share_mb, model_name, train_job_mb

ORDERS = range(1, 7)
TEXT_MB = [0.2, 1, 10, 57.3, 367, 836, 5000]
BUDGETS_MB = [300, 2000, 13107, 19284, 26214, 100000]


@pytest.mark.parametrize("jobs_at_once", [1, 2, 3, 8])
def test_every_job_fits_its_reservation_and_the_reservations_fit_the_budget(jobs_at_once):
    for order, text_mb, budget in itertools.product(ORDERS, TEXT_MB, BUDGETS_MB):
        share = budget // jobs_at_once
        try:
            job = train_job_mb(order, text_mb, share, budget)
        except LmgapError as err:
            # Refused only when build_binary and a working lmplz cannot fit the whole budget.
            assert binary_mem_mb(order, text_mb) + max(LMPLZ_MIN_MB, min(1024, 16 * order * text_mb)) > budget
            assert "memory.budget_mb" in str(err)
            continue
        lmplz = lmplz_share_mb(job, order, text_mb)
        assert job <= budget
        assert lmplz >= LMPLZ_MIN_MB
        # -S plus build_binary's part stays inside what the job reserved.
        assert lmplz + binary_mem_mb(order, text_mb) <= job
        # More than a share only where build_binary would not fit in one with a working lmplz.
        if job > share:
            assert binary_mem_mb(order, text_mb) + min(1024, 16 * order * text_mb) > share


def test_the_10m_word_benchmark_gets_what_it_needs_within_its_share():
    # 60,083,613 bytes of text (57.3 MB), 5-gram, 19,284 MB budget, two jobs at once:
    # build_binary 256 + 2.5 * 5 * 57.3 = 972 MB, lmplz 16 * 5 * 57.3 = 4,584 MB, both under 9,642.
    job = train_job_mb(5, 60083613 / 2**20, 9642, 19284)
    assert job == 972 + 4584
    assert lmplz_share_mb(job, 5, 60083613 / 2**20) == 4584


def test_the_real_corpus_on_a_16_gb_laptop_runs_its_5_gram_alone():
    # 836 MB of text; 80% of 16,384 MB is 13,107 MB, 6,553 MB for each of two jobs. build_binary
    # alone is estimated at 256 + 2.5 * 5 * 836 = 10,706 MB, so the job takes that plus 1 GB for
    # lmplz, more than half the budget: Snakemake then runs it with no other train job.
    job = train_job_mb(5, 836, 13107 // 2, 13107)
    assert job == 10706 + 1024
    assert 2 * job > 13107
    assert lmplz_share_mb(job, 5, 836) == 1024


def test_a_budget_below_build_binarys_part_is_refused_with_the_setting_to_raise():
    # 10,706 MB for build_binary (above) and 1 GB for lmplz.
    with pytest.raises(LmgapError, match=r"about 11,730 MB .* about 10,706 MB .* budget of 8,000 MB\. Raise memory\.budget_mb"):
        train_job_mb(5, 836, 4000, 8000)


def test_model_names_keep_every_digit_of_a_fraction_and_no_exponent():
    assert [model_name(3, train_fraction=f) for f in (1.0, 0.5, 0.01, 1e-05, 0.12345678901)] == [
        "o3", "o3-frac0.5", "o3-frac0.01", "o3-frac0.00001", "o3-frac0.12345678901",
    ]
    assert model_name(5, [0, 0, 1], True, 0.1) == "o5-prune0.0.1-fallback-frac0.1"
    # The sample rule reads the fraction back from the folder name.
    assert all(float(fraction_label(f)) == f for f in (0.3, 0.1 + 0.2, 2e-06, 0.999999))
