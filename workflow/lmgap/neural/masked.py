"""A masked model's gap predictions (a user's BERT, RoBERTa, ...): its whole-word tokens' probabilities
at one mask between both contexts, the pieces' left to p0 (docs/gap-task.md); it has no perplexity."""

import time

import numpy as np

from ..errors import LmgapError
from ..gap.lines import format_line, read_gaps, write_out
from .model import load_pretrained, right_padded


def load_masked(folder):
    """(masked LM in evaluation mode, fast tokenizer) from a folder, offline."""
    from transformers import AutoModelForMaskedLM

    model, tokenizer = load_pretrained(
        folder,
        AutoModelForMaskedLM,
        "cannot load a masked language model and its tokenizer from {folder}; give the folder a masked "
        "LM (BERT, RoBERTa, ...) was saved to with save_pretrained",
    )
    if tokenizer.mask_token_id is None:
        raise LmgapError(
            f"{folder}: the tokenizer has no mask token, so it is not a masked language model's; for a "
            "causal model, drop `kind: masked` from its entry in config.yaml"
        )
    return model, tokenizer


def whole_words(tokenizer):
    """(token ids, words): the vocabulary's tokens that stand for a whole word, each with it."""
    special = set(tokenizer.all_special_ids)
    ids = [token for token in range(len(tokenizer)) if token not in special]
    decoded = tokenizer.batch_decode([[token] for token in ids])
    pairs = [(token, text.strip()) for token, text in zip(ids, decoded) if len(text.split()) == 1]
    encoded = tokenizer([" " + word for _, word in pairs], add_special_tokens=False)["input_ids"]
    kept = [(token, word) for (token, word), again in zip(pairs, encoded) if again == [token]]
    return np.array([token for token, _ in kept], dtype=np.int64), [word for _, word in kept]


def special_tokens_around(tokenizer, folder):
    """(ids before, ids after) a text, as the tokenizer frames one ([CLS] .. [SEP], <s> .. </s>)."""
    body = tokenizer("a", add_special_tokens=False)["input_ids"]
    framed = tokenizer("a")["input_ids"]
    for start in range(len(framed) - len(body) + 1):
        if framed[start : start + len(body)] == body:
            return framed[:start], framed[start + len(body) :]
    raise LmgapError(
        f"{folder}: the tokenizer does not keep a text's tokens together between its special tokens, "
        "so the mask's window cannot be built; give a masked LM's own tokenizer"
    )


class MaskedPredictor:
    """Each gap's distribution over whole words from one masked model."""

    def __init__(self, model, tokenizer, max_length, batch_size, folder="the model's folder"):
        self.model, self.tokenizer = model, tokenizer
        self.max_length, self.batch_size = max_length, batch_size
        self.token_ids, self.words = whole_words(tokenizer)
        if not self.words:
            raise LmgapError(
                f"{folder}: the tokenizer has no token that stands for a whole word (one a word after "
                "a space is tokenized to, alone); is it a masked LM's tokenizer?"
            )
        self.prefix, self.suffix = special_tokens_around(tokenizer, folder)
        # Room for the mask and the special tokens the tokenizer puts around a text.
        self.room = max_length - 1 - len(self.prefix) - len(self.suffix)

    def window(self, left, right):
        """(token ids of `left [MASK] right`, each side cut to fit max_length; the mask's position:
        a context may hold the mask's own text, which the tokenizer reads as the mask too)."""
        encode = self.tokenizer
        left_ids = encode(left, add_special_tokens=False)["input_ids"] if left else []
        right_ids = encode(" " + right, add_special_tokens=False)["input_ids"] if right else []
        half = self.room // 2
        keep_left = min(len(left_ids), max(half, self.room - len(right_ids)))
        keep_right = min(len(right_ids), self.room - keep_left)
        middle = [*left_ids[len(left_ids) - keep_left :], self.tokenizer.mask_token_id, *right_ids[:keep_right]]
        return [*self.prefix, *middle, *self.suffix], len(self.prefix) + keep_left

    def probabilities(self, windows):
        """Each window's probabilities of the whole-word tokens at its mask (windows: what
        window() returns)."""
        import torch

        mask = [at for _, at in windows]
        ids, attention = right_padded([ids for ids, _ in windows], self.tokenizer.pad_token_id or 0)
        device = self.model.device
        with torch.inference_mode():
            logits = self.model(input_ids=ids.to(device), attention_mask=attention.to(device)).logits
            at_mask = logits[torch.arange(len(windows)), torch.tensor(mask)].double()
            probabilities = torch.softmax(at_mask, dim=-1)[:, torch.from_numpy(self.token_ids).to(device)]
        return probabilities.cpu().numpy()


def write_masked(predictor, split_dir, top_k, outputs, log):
    """out.tsv and stats of a masked model on a split: the top_k whole words at each gap's mask."""
    started = time.monotonic()
    gaps = read_gaps(split_dir)

    def rows():
        for at in range(0, len(gaps), predictor.batch_size):
            batch = gaps[at : at + predictor.batch_size]
            windows = [
                predictor.window(left.decode("utf-8", "replace"), right.decode("utf-8", "replace"))
                for left, right in batch
            ]
            for probabilities in predictor.probabilities(windows):
                text, listed, p0 = format_line(predictor.words, probabilities, top_k, 1.0)
                yield text, len(predictor.words), listed, p0

    write_out(rows(), outputs.out, outputs.stats)
    log.write(
        f"predicted {len(gaps):,} gaps from {len(predictor.words):,} whole-word tokens in "
        f"{time.monotonic() - started:.1f} s\n"
    )
