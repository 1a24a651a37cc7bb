"""Names and options of the models a config asks for, and the memory their jobs reserve."""

from decimal import Decimal

from .errors import LmgapError


def fraction_label(fraction):
    """A training fraction as a folder name shows it: every digit of its shortest form, never an
    exponent (1e-05 -> `0.00001`), so two fractions never share a folder and the sample rule
    reads back the very number configured."""
    return format(Decimal(repr(float(fraction))), "f")


def model_name(order, prune=(), discount_fallback=False, train_fraction=1.0):
    """A folder name that tells models with different options apart: `o3`,
    `o4-prune0.0.1-fallback`, `o5-frac0.1` (a model of the whole training split has no `-frac`)."""
    name = f"o{order}"
    if prune:
        name += "-prune" + ".".join(str(p) for p in prune)
    if discount_fallback:
        name += "-fallback"
    if train_fraction != 1:
        name += f"-frac{fraction_label(train_fraction)}"
    return name


def models_from_config(orders, prune_settings, discount_fallback, train_fractions=(1.0,)):
    """{name: options} for every combination of order, pruning and training fraction."""
    return {
        model_name(order, prune, discount_fallback, fraction): {
            "order": order,
            "prune": list(prune),
            "discount_fallback": bool(discount_fallback),
            "train_fraction": float(fraction),
        }
        for order in sorted(set(orders))
        for prune in prune_settings
        for fraction in sorted(set(train_fractions))
    }


def prune_settings(prune):
    """lmplz.prune as a list of settings: one list of thresholds, or a list of such lists."""
    if prune and all(isinstance(setting, list) for setting in prune):
        return [list(setting) for setting in dict.fromkeys(tuple(setting) for setting in prune)]
    return [list(prune)]


# lmplz holds its vocabulary hash table (24 MiB before the first word) within -S, whatever
# the corpus; below this it stops at once.
LMPLZ_MIN_MB = 32


def binary_mem_mb(order, text_mb):
    """What build_binary holds while it builds a model: about 2.5 bytes per byte of text and
    order (measured: 584 MB for a 5-gram of 60 MB of text), plus its buffers."""
    return 256 + int(2.5 * order * text_mb)


# Below its in-memory sort lmplz merges through -T instead, at little cost: a 5-gram of 64M
# words (367 MB of text) took 128 s with -S 1G, against 136-164 s with 2, 4.8 and 9 GB.
LMPLZ_WORKING_MB = 1024


def lmplz_sort_mb(order, text_mb):
    """Sixteen bytes per byte of text and order lets lmplz sort in memory."""
    return int(16 * order * text_mb)


def lmplz_need_mb(order, text_mb):
    """What lmplz is given when the budget allows: its in-memory sort, at least 1 GB. A larger -S
    only costs time (the whole 1M-word run took 18 s with 9.6 GB for each lmplz, 11 s with 1 GB),
    so it gets no more."""
    return max(LMPLZ_WORKING_MB, lmplz_sort_mb(order, text_mb))


def train_job_mb(order, text_mb, share_mb, budget_mb):
    """The memory a train job reserves (lmplz and build_binary running together).

    What both need, at most share_mb (the budget divided by the jobs that can run at once),
    but never less than build_binary's part plus a working lmplz: where a share is smaller,
    the job takes more and fewer jobs run at once, since build_binary holds the whole model
    and cannot make do with less. An LmgapError when even that exceeds the whole budget.
    """
    binary = binary_mem_mb(order, text_mb)
    floor = binary + max(LMPLZ_MIN_MB, min(LMPLZ_WORKING_MB, lmplz_sort_mb(order, text_mb)))
    if floor > budget_mb:
        raise LmgapError(
            f"The order-{order} model needs about {floor:,} MB of memory (build_binary holds the whole "
            f"model, about {binary:,} MB for this training text), more than the memory budget "
            f"of {budget_mb:,} MB. Raise memory.budget_mb in config.yaml (or --resources mem_mb=N), "
            "or train on less text (train_split) or lower orders."
        )
    return int(min(budget_mb, max(floor, min(share_mb, binary + lmplz_need_mb(order, text_mb)))))


def lmplz_share_mb(job_mb, order, text_mb):
    """lmplz's -S inside a train job of job_mb: what build_binary does not need."""
    return max(job_mb - binary_mem_mb(order, text_mb), LMPLZ_MIN_MB)
