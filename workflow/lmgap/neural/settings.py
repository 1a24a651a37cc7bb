"""The neural models a config asks for, each with its evaluation window settled."""

import json
import os
from pathlib import Path

from ..errors import LmgapError
from .cloze import CONFIG, VOCABULARY, WEIGHTS
from .model import check_model_folder
from .window import check_window

CONTEXT_KEYS = ("n_positions", "max_position_embeddings", "n_ctx")
# Model types whose position ids start at the padding index + 1.
OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert", "longformer", "roberta-prelayernorm")
# The logits of a batch of windows (4 bytes per vocabulary entry and position) are its largest
# tensor: GPT-2's 50,257 entries at 1,024 positions take 200 MB a window.
BATCH_LOGITS_BYTES = 2**29


def default_batch_size(vocab_size, max_length):
    """16 windows per forward pass, fewer where their logits would pass BATCH_LOGITS_BYTES."""
    return max(1, min(16, BATCH_LOGITS_BYTES // (4 * vocab_size * max_length)))


def saved_config(folder):
    """(context length or None, vocabulary size) from a saved model's config.json (the user's
    file, not a record of the pipeline's: a damaged one is re-saved, not deleted)."""
    path = Path(folder) / "config.json"
    try:
        with open(path) as handle:
            config = json.load(handle)
    except ValueError as err:
        raise LmgapError(f"{path} is not valid JSON ({err}): save the model again with save_pretrained") from None
    context = next((int(config[key]) for key in CONTEXT_KEYS if config.get(key)), None)
    if context and config.get("model_type") in OFFSET_POSITIONS:
        # RoBERTa's positions start after its padding index: 514 embeddings read 512 tokens.
        context -= int(config.get("pad_token_id") or 0) + 1
    return context, int(config.get("vocab_size") or 50257)


def neural_models(entries):
    """{name: settings} from the config's neural: section: `source` (`train` or `path`), `kind`, the
    training settings or the folder, and the window (max_length, stride, batch_size) it reads with
    (a cloze model: batch_size alone, see cloze_model)."""
    models = {}
    for name, entry in sorted(entries.items()):
        where = f"neural.{name}"
        if ("train" in entry) == ("path" in entry):
            raise LmgapError(
                f"{where} needs exactly one of train: (a model the pipeline trains; train: {{}} "
                "for the default small one) or path: (a folder holding a saved model)"
            )
        kind = entry.get("kind", "causal")
        if kind == "cloze":
            models[name] = cloze_model(where, entry)
            continue
        if kind == "masked" and "path" not in entry:
            raise LmgapError(
                f"{where}: kind: masked needs path: (a folder holding a saved masked LM, BERT or "
                "RoBERTa say); the pipeline trains causal and cloze models, not masked ones"
            )
        if "train" in entry:
            train = entry["train"]
            if train["width"] % train["heads"]:
                # Refused here, not after the tokenizer has trained: each head takes an equal share.
                raise LmgapError(
                    f"{where}.train: width {train['width']} is not a multiple of heads {train['heads']}: "
                    "each attention head takes an equal share of the width; change one of them"
                )
            settings = {"source": "train", "train": dict(train), "vocab_size": train["vocab_size"]}
            limit = entry["train"]["context"]
        else:
            folder = os.path.abspath(os.path.expanduser(entry["path"]))
            check_model_folder(folder, f"{where}.path")
            limit, vocab_size = saved_config(folder)
            settings = {"source": "path", "path": folder, "vocab_size": vocab_size}
        max_length = entry["max_length"] or limit
        if max_length is None:
            raise LmgapError(f"{where}: the model's config.json gives no context length; set max_length")
        if limit is not None and max_length > limit:
            raise LmgapError(
                f"{where}.max_length is {max_length}, but the model reads at most {limit} tokens at "
                f"once; give at most {limit}, or null for that"
            )
        stride = entry["stride"] or max(1, max_length // 2)
        try:
            check_window(max_length, stride)
        except LmgapError as err:
            raise LmgapError(f"{where}: {err}; change stride (or max_length)") from None
        batch_size = entry["batch_size"] or default_batch_size(settings["vocab_size"], max_length)
        models[name] = {**settings, "kind": kind, "max_length": max_length, "stride": stride, "batch_size": batch_size}
    return models


# Gaps per forward pass of a cloze model: their log-probabilities over a vocabulary of 100,000 words
# take 200 MB in double.
CLOZE_BATCH = 256


def cloze_model(where, entry):
    """A cloze model's settings: `source`, `kind`, its training settings or folder, and the gaps it reads at
    once (batch_size); it reads words, so a token window's settings are refused rather than ignored."""
    for key in ("max_length", "stride"):
        if entry[key] is not None:
            raise LmgapError(
                f"{where}.{key}: a cloze model reads words on each side of a gap (its train: window), not a "
                f"window of tokens; remove {key}"
            )
    batch_size = entry["batch_size"] or CLOZE_BATCH
    if "train" in entry:
        return {"source": "train", "kind": "cloze", "train": dict(entry["train"]), "batch_size": batch_size}
    folder = os.path.abspath(os.path.expanduser(entry["path"]))
    missing = [name for name in (CONFIG, VOCABULARY, WEIGHTS) if not (Path(folder) / name).is_file()]
    if missing:
        raise LmgapError(
            f"{where}.path: {folder} lacks {', '.join(missing)}, so it holds no cloze model; give the model "
            "folder a run of the pipeline trained (results/neural/NAME/model), copied whole"
        )
    return {"source": "path", "kind": "cloze", "path": folder, "batch_size": batch_size}
