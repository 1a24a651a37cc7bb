"""The byte-level BPE tokenizer a trained neural model reads text with."""

import re

from ..atomic import atomic_path

# GPT-2's one special token: it ends every line (KenLM's </s>) and starts every document.
END_OF_TEXT = "<|endoftext|>"

# What separates words for KenLM's query in the rebuilt text (see lmgap.corpus.rebuild); str.split() would
# also split at no-break and other Unicode spaces, which KenLM reads as part of a word.
SEPARATORS = re.compile(r"[ \t\n]+")


def normalised(line):
    """The text a neural model reads for a line: its words, as KenLM counts them, single-spaced."""
    return " ".join(word for word in SEPARATORS.split(line) if word)


def read_lines(path):
    """A text's lines, normalised, streamed (the real training text is 836 MB)."""
    with open(path, encoding="utf-8", errors="replace", newline="\n") as handle:
        yield from map(normalised, handle)


def train_tokenizer(text_path, vocab_size, out_path):
    """Learn a byte-level BPE of vocab_size tokens (the 256 bytes, END_OF_TEXT and merges) on a
    text; write it as tokenizers' JSON file. Deterministic: the same text gives the same file."""
    # Imported here, as torch is where it is used, so that a job without the neural packages
    # says how to install them (lmgap.scriptio).
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    # Every byte is a token, so no word is ever unknown to the model.
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[END_OF_TEXT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(read_lines(text_path), trainer=trainer)
    with atomic_path(out_path) as tmp:
        tokenizer.save(str(tmp))
