"""Entry point of rule train: lmplz streaming into a build_binary per format, then each model's counts and usage."""

import os
import shlex
import time
from pathlib import Path

from lmgap.atomic import write_json
from lmgap.corpus.sampling import count_lines
from lmgap.ngram.binary import check_binary
from lmgap.ngram.formats import PROBING, parse_format
from lmgap.ngram.memory import binary_mb, builds_together, lmplz_memory_mb, text_mb, text_tokens, trie_sort_mb
from lmgap.ngram.run import padded_size, temp_dir, train
from lmgap.scriptio import kenlm_tool, run


def tools_and_fix():
    """The tools that trained the model, and what puts working ones in their place."""
    tools = f"lmplz {kenlm_tool(snakemake, 'lmplz')}, build_binary {kenlm_tool(snakemake, 'build_binary')}"
    if snakemake.config["kenlm"]["bin_dir"]:
        return tools, "set kenlm.bin_dir to a working KenLM build (or to null: the pipeline builds its own)"
    build = shlex.quote(str(Path(kenlm_tool(snakemake, "build_binary")).parent.parent.resolve()))
    return tools, f"delete the pipeline's build, which the run makes again: rm -r -- {build}"


def main(log):
    started = time.time()
    options = snakemake.params.options
    # The formats the rule's outputs are for: `binary` (probing) and `binary-trie-q8b8` and the like (common.smk,
    # trained_files). Not a parameter: a format dropped from the config would then train the others again.
    formats = [
        PROBING if key == "binary" else key.removeprefix("binary-")
        for key in snakemake.output.keys()
        if key == "binary" or key.startswith("binary-")
    ]
    order, reserved = options["order"], snakemake.resources.mem_mb
    # The figures the rule reserved this job's memory from, read again from the same text.
    tokens = text_tokens(snakemake.input.text)
    size_mb = text_mb(snakemake.input.text)
    lmplz_mb = lmplz_memory_mb(reserved, order, tokens, size_mb, formats)
    together = builds_together(order, tokens, size_mb, reserved, formats)
    temp = temp_dir(snakemake.config, snakemake.wildcards.model)
    # --vocab_pad counts `</s>` with the words (lmgap.ngram.run.padded_size).
    pad = padded_size(snakemake.input.vocabulary[0]) if options.get("vocab_pad") else 0
    # Each format's files are rule train's outputs keyed by its folder's suffix (common.smk, trained_files).
    outputs = {
        binary: {
            name: snakemake.output.get(name + parse_format(binary).suffix)
            for name in ("binary", "counts", "usage", "arpa")
        }
        for binary in formats
    }
    first = outputs[formats[0]]
    settings = {**options, "mem_mb": lmplz_mb, "vocab_pad": pad, "sort_mb": trie_sort_mb(order, tokens)}
    binaries = {binary: files["binary"] for binary, files in outputs.items()}
    inputs = {
        "text": snakemake.input.text,
        "lmplz": kenlm_tool(snakemake, "lmplz"),
        "build_binary": kenlm_tool(snakemake, "build_binary"),
    }
    counts, usage, words, fallback = train(inputs, settings, binaries, temp, log, first["arpa"], together)
    # One ARPA copy, linked into the folder of each format's model.
    for files in outputs.values():
        if files["arpa"] and files is not first:
            os.link(first["arpa"], files["arpa"])
    # ngrams[k - 1]: distinct k-grams; the text's tokens as the tables count them (lmplz's words and a
    # `</s>` per line); the orders whose discounts --discount_fallback filled in (the tables name them).
    lines = count_lines(snakemake.input.text)
    ngrams = [counts[k] for k in sorted(counts)]
    for binary, files in outputs.items():
        check_binary(files["binary"], binary, order, ngrams, *tools_and_fix())
    record = {
        "ngrams": ngrams,
        "training_text": {"lines": lines, "words": words, "tokens": words + lines},
        "fallback_discounts": fallback,
        **({"vocab_pad": pad} if pad else {}),
    }
    ended = time.time()
    for binary, files in outputs.items():
        write_json(record, files["counts"])
        # What the job reserved and why, beside what the tools used: the estimate's margin. Every
        # format's build_binary ran at once, reading what lmplz wrote.
        memory = {
            "reserved_mb": reserved,
            # Whether every format read lmplz's stream at once, or all but the first a copy of it on disk.
            "formats_together": together,
            "lmplz_s_mb": lmplz_mb,
            "binary_estimate_mb": binary_mb(order, tokens, binary),
            "binary_model_mb": parse_format(binary).model_bytes(ngrams) / 2**20,
        }
        # When the job ran (epoch seconds), for what ran beside it (benchmarks/schedule.py).
        own = {"lmplz": usage["lmplz"], "build_binary": usage["build_binary"][binary], "memory": memory}
        write_json({**own, "job": {"started": started, "ended": ended}}, files["usage"])


run(snakemake, main)
