"""Entry point of rule train: lmplz streaming into build_binary, then the model's counts and usage."""

import time

from lmgap.atomic import write_json
from lmgap.corpus.sampling import count_lines
from lmgap.ngram.memory import binary_mb, lmplz_memory_mb, probing_bytes, text_mb, text_tokens
from lmgap.ngram.run import padded_size, temp_dir, train
from lmgap.scriptio import run


def main(log):
    started = time.time()
    options = snakemake.params.options
    order, reserved = options["order"], snakemake.resources.mem_mb
    # The figures the rule reserved this job's memory from, read again from the same text.
    tokens = text_tokens(snakemake.input.text)
    lmplz_mb = lmplz_memory_mb(reserved, order, tokens, text_mb(snakemake.input.text))
    temp = temp_dir(snakemake.config, snakemake.wildcards.model)
    # --vocab_pad counts `</s>` with the words (lmgap.ngram.run.padded_size).
    pad = padded_size(snakemake.input.vocabulary[0]) if options.get("vocab_pad") else 0
    counts, usage, words, fallback = train(
        snakemake.input, {**options, "mem_mb": lmplz_mb, "vocab_pad": pad}, snakemake.output, temp, log
    )
    # ngrams[k - 1]: distinct k-grams; the text's tokens as the tables count them (lmplz's words and a
    # `</s>` per line); the orders whose discounts --discount_fallback filled in (the tables name them).
    lines = count_lines(snakemake.input.text)
    write_json(
        {
            "ngrams": [counts[k] for k in sorted(counts)],
            "training_text": {"lines": lines, "words": words, "tokens": words + lines},
            "fallback_discounts": fallback,
            **({"vocab_pad": pad} if pad else {}),
        },
        snakemake.output.counts,
    )
    # What the job reserved and why, beside what the tools used: the estimate's margin.
    usage["memory"] = {
        "reserved_mb": reserved,
        "lmplz_s_mb": lmplz_mb,
        "binary_estimate_mb": binary_mb(order, tokens),
        "binary_model_mb": probing_bytes([counts[k] for k in sorted(counts)]) / 2**20,
    }
    # When the job ran (epoch seconds), for what ran beside it (benchmarks/schedule.py).
    usage["job"] = {"started": started, "ended": time.time()}
    write_json(usage, snakemake.output.usage)


run(snakemake, main)
