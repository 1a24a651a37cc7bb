"""Names and options of the models a config asks for."""


def model_name(order, prune=(), discount_fallback=False):
    """A folder name that tells models with different options apart: `o3`, `o4-prune0.0.1-fallback`."""
    name = f"o{order}"
    if prune:
        name += "-prune" + ".".join(str(p) for p in prune)
    if discount_fallback:
        name += "-fallback"
    return name


def models_from_config(orders, prune, discount_fallback):
    """{name: options} for every order, sharing the configured lmplz options."""
    return {
        model_name(order, prune, discount_fallback): {
            "order": order,
            "prune": list(prune),
            "discount_fallback": bool(discount_fallback),
        }
        for order in sorted(set(orders))
    }


# lmplz holds its vocabulary hash table (24 MiB before the first word) within -S, whatever
# the corpus; below this it stops at once. Above it, what does not fit spills to -T.
LMPLZ_MIN_MB = 32


def binary_mem_mb(order, text_mb):
    """What build_binary holds while it builds a model: about 2.5 bytes per byte of text and
    order (measured: 584 MB for a 5-gram of 60 MB of text), plus its buffers."""
    return 256 + int(2.5 * order * text_mb)


def lmplz_need_mb(order, text_mb):
    """Sixteen bytes per byte of text and order lets lmplz sort in memory; it touches all of
    its -S, which costs seconds on small corpora, so it gets no more (at least 1 GB)."""
    return max(1024, int(16 * order * text_mb))


def lmplz_share_mb(job_mb, order, text_mb):
    """lmplz's -S inside a train job of job_mb: what build_binary does not need."""
    return max(job_mb - binary_mem_mb(order, text_mb), LMPLZ_MIN_MB)
