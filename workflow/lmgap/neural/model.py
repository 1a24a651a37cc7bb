"""Loading a causal language model and its tokenizer from a folder, and scoring windows with it."""

import os
from pathlib import Path

from ..errors import LmgapError

# Nothing is ever downloaded: a model is a folder on this machine.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
# Snakemake runs jobs side by side, often more threads than cores: PyTorch's OpenMP threads (GNU's,
# in its Linux wheels) spin 300,000 times while they wait for one another, taking the cores the
# others need. Two trainings side by side on two cores took 1.79 s a step each (0.20 alone); spinning
# 1,000 times, 0.39 (0.21 alone; benchmarks/threads.py, BENCHMARKS.md). Set before torch loads.
os.environ.setdefault("GOMP_SPINCOUNT", "1000")


def device():
    """A GPU when the machine has one PyTorch can use, else the CPU."""
    import torch

    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def check_model_folder(path, key):
    """A `path:` model's folder must hold a Hugging Face model (causal or masked) and its tokenizer."""
    if not (Path(path) / "config.json").is_file():
        raise LmgapError(
            f"{key}: {path} is not a folder holding a Hugging Face model (config.json, its "
            "weights and its tokenizer's files, as save_pretrained writes them); give the folder "
            "a model was saved to"
        )


def load_pretrained(folder, model_class, failed):
    """(model in evaluation mode on device(), tokenizer) from a folder, offline; an LmgapError
    ending in `failed` (what to do) when either cannot be loaded."""
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        model = model_class.from_pretrained(folder, local_files_only=True)
    except (OSError, ValueError) as err:
        raise LmgapError(f"{failed.format(folder=folder)} ({err})") from None
    model.eval()
    return model.to(device()), tokenizer


def load(folder):
    """(causal model in evaluation mode on device(), fast tokenizer) from a folder, offline."""
    from transformers import AutoModelForCausalLM

    model, tokenizer = load_pretrained(
        folder,
        AutoModelForCausalLM,
        "cannot load a causal language model and its tokenizer from {folder}; if it holds a masked LM "
        "(BERT, RoBERTa, ...), give its entry in config.yaml `kind: masked`",
    )
    if not tokenizer.is_fast:
        raise LmgapError(
            f"{folder}: the tokenizer is not a fast (Rust) tokenizer, whose character offsets map "
            "tokens to words; save one with tokenizer.json"
        )
    if tokenizer.eos_token_id is None:
        raise LmgapError(
            f"{folder}: the tokenizer has no end-of-text token (eos_token), which ends each line as "
            "KenLM's </s> does; set eos_token in its tokenizer_config.json"
        )
    return model, tokenizer


def right_padded(batch, pad=0):
    """(ids, mask) tensors of a batch of id sequences, each right-padded with pad to the longest: a
    causal model's positions never read later ones, and the mask keeps a masked model's off it."""
    import torch

    rows = [torch.as_tensor(sequence, dtype=torch.long) for sequence in batch]
    ids = torch.nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=pad)
    mask = torch.nn.utils.rnn.pad_sequence([torch.ones_like(row) for row in rows], batch_first=True)
    return ids, mask


def window_scorer(model):
    """model_logprobs for window.score_windows: right-padded batches."""
    import torch

    def model_logprobs(batch):
        inputs = right_padded(batch)[0].to(model.device)
        with torch.inference_mode():
            logits = model(input_ids=inputs).logits.float()
            following = inputs[:, 1:].unsqueeze(-1)
            logprobs = logits[:, :-1].gather(-1, following).squeeze(-1) - torch.logsumexp(logits[:, :-1], dim=-1)
        logprobs = logprobs.double().cpu().numpy()
        return [logprobs[row, : len(window) - 1] for row, window in enumerate(batch)]

    return model_logprobs
