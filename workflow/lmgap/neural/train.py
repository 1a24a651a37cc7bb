"""Training a GPT-2-architecture causal transformer from random initialisation on the training
text, deterministically for a seed (on the CPU, with the same number of threads)."""

import itertools
import os
import time

import numpy as np

from ..atomic import atomic_path
from ..errors import LmgapError
from .model import device
from .steps import learning_rate, write_training
from .tokenizer import END_OF_TEXT, read_lines

ENCODE_LINES = 10000


def encode_text(text_path, tokenizer_path):
    """(the text's token ids, each line ended by END_OF_TEXT and the first begun by it as at evaluation,
    in the smallest integer type; the tokenizer; the text's lines, words and tokens as tables count)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    end = tokenizer.token_to_id(END_OF_TEXT)
    dtype = np.uint16 if tokenizer.get_vocab_size() <= 2**16 else np.uint32
    pieces, text = [np.array([end], dtype=dtype)], read_lines(text_path)
    lines = words = 0
    while batch := list(itertools.islice(text, ENCODE_LINES)):
        lines += len(batch)
        words += sum(line.count(" ") + 1 for line in batch if line)
        for encoding in tokenizer.encode_batch(batch, add_special_tokens=False):
            pieces.append(np.array([*encoding.ids, end], dtype=dtype))
    size = {"lines": lines, "words": words, "tokens": words + lines}
    return np.concatenate(pieces), tokenizer, size


def build_model(settings, vocab_size, end_id):
    """A randomly initialised GPT-2 of the given size; no dropout (small budgets, exact reruns)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=vocab_size,
        n_positions=settings["context"],
        n_embd=settings["width"],
        n_layer=settings["layers"],
        n_head=settings["heads"],
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=end_id,
        eos_token_id=end_id,
    )
    return GPT2LMHeadModel(config)


def train(inputs, settings, outputs, threads, log):
    """Train, then write outputs: model (a folder from_pretrained loads), loss (every step's) and record
    (what it cost, in the log too); inputs: text, tokenizer."""
    text_path = inputs["text"]
    import torch
    from transformers import PreTrainedTokenizerFast

    started = time.perf_counter()
    torch.manual_seed(settings["seed"])
    # Exact reruns on the CPU; on a GPU cuBLAS needs a fixed workspace for them, and an operation
    # with no deterministic kernel warns instead of stopping the run.
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.set_num_threads(threads)
    stream, tokenizer, size = encode_text(text_path, inputs["tokenizer"])
    context, batch, steps = settings["context"], settings["batch_size"], settings["steps"]
    if len(stream) < context + 1:
        raise LmgapError(
            f"{text_path} is {len(stream):,} tokens long, fewer than one training window of "
            f"context + 1 = {context + 1}; lower the model's context or train on more text"
        )
    on = device()
    model = build_model(settings, tokenizer.get_vocab_size(), tokenizer.token_to_id(END_OF_TEXT)).to(on)
    model.train()
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=settings["learning_rate"], betas=(0.9, 0.95), weight_decay=0.01
    )
    rng = np.random.Generator(np.random.PCG64(settings["seed"]))
    offsets = np.arange(context + 1)
    losses = []
    encoded = time.perf_counter()
    for step in range(steps):
        starts = rng.integers(0, len(stream) - context, size=batch)
        window = torch.from_numpy(stream[starts[:, None] + offsets].astype(np.int64)).to(on)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, steps, settings["learning_rate"])
        logits = model(input_ids=window[:, :-1]).logits
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), window[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append((step + 1, loss.item(), group["lr"], time.perf_counter() - encoded))
    trained = time.perf_counter()
    with atomic_path(outputs["model"]) as tmp:
        model.cpu().save_pretrained(tmp)
        PreTrainedTokenizerFast(
            tokenizer_object=tokenizer, bos_token=END_OF_TEXT, eos_token=END_OF_TEXT
        ).save_pretrained(tmp)
    seen = steps * batch * context
    record = {
        "parameters": sum(p.numel() for p in model.parameters()),
        "vocab_size": tokenizer.get_vocab_size(),
        "training_text": size,
        "training_subword_tokens": int(len(stream)),
        "subword_tokens_seen": seen,
        "epochs": seen / len(stream),
        "encode_seconds": encoded - started,
        "train_seconds": trained - encoded,
        "train_tokens_per_second": seen / (trained - encoded),
        "threads": threads,
        "device": on.type,
    }
    return write_training(losses, record, outputs, log)
