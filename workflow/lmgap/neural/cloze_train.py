"""Training a cloze model on the training split's text for the gap objective, deterministically for a
seed (on the CPU, with the same number of threads): every word of a window is predicted from the
window's words on both sides of it."""

import json
import os
import time

import numpy as np

from ..atomic import atomic_path
from ..errors import LmgapError
from .cloze import CONFIG, MODEL_TYPE, UNKNOWN, VOCABULARY, WEIGHTS, encode_lines, marks, training_lines
from .cloze import vocabulary, word_index, write_vocabulary
from .model import device
from .steps import learning_rate, write_training


def train_cloze(inputs, settings, outputs, threads, log):
    """Train, then write outputs: model (its folder), loss (every step's) and record; inputs: text (the
    training split's), heldout (the lines left out, on which p0 is set)."""
    import torch
    from safetensors.torch import save_file

    from .cloze_net import ClozeNet

    started = time.perf_counter()
    torch.manual_seed(settings["seed"])
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.set_num_threads(threads)
    kept = training_lines(inputs["text"], inputs["heldout"], settings["train_fraction"])
    words, word_count = vocabulary(inputs["text"], kept, settings["vocab_size"], settings["min_count"])
    stream = encode_lines(inputs["text"], kept, word_index(words))
    start_mark, _ = marks(len(words))
    length = settings["window"] + 2
    if len(stream) < length:
        raise LmgapError(
            f"{inputs['text']} holds {len(stream):,} words and marks to learn from, fewer than one window of "
            f"window + 2 = {length}; lower the cloze model's window or train on more text"
        )
    on = device()
    model = ClozeNet(len(words), settings["width"], settings["layers"], settings["dropout"]).to(on)
    model.train()
    # The word vectors' gradients are sparse (cloze_net): Adam's lazy form for them, which moves the
    # vectors of the words a step saw; Adam for the rest, whose gradients are clipped.
    dense = [parameter for name, parameter in model.named_parameters() if name != "embed.weight"]
    optimizers = [
        torch.optim.SparseAdam([model.embed.weight], lr=settings["learning_rate"]),
        torch.optim.Adam(dense, lr=settings["learning_rate"]),
    ]
    rng = np.random.Generator(np.random.PCG64(settings["seed"]))
    steps, losses, predicted = settings["steps"], [], 0
    encoded = time.perf_counter()
    for step in range(steps):
        starts = rng.integers(0, len(stream) - length + 1, size=settings["batch_size"])
        windows = stream[starts[:, None] + np.arange(length)].astype(np.int64)
        targets = torch.from_numpy(windows[:, 1:-1]).to(on)
        inner = targets < start_mark
        rate = learning_rate(step, steps, settings["learning_rate"])
        for optimizer in optimizers:
            optimizer.param_groups[0]["lr"] = rate
            optimizer.zero_grad(set_to_none=True)
        states = model.window_states(torch.from_numpy(windows).to(on))
        loss = model.out(states[inner], targets[inner]).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(dense, 1.0)
        for optimizer in optimizers:
            optimizer.step()
        predicted += int(inner.sum())
        losses.append((step + 1, loss.item(), rate, time.perf_counter() - encoded))
        if (step + 1) % max(1, steps // 10) == 0:
            recent = np.mean([loss for _, loss, _, _ in losses[-max(1, steps // 10) :]])
            log.write(f"step {step + 1:,} of {steps:,}: mean loss {recent:.3f} nats, {losses[-1][3]:.0f} s\n")
            log.flush()
    trained = time.perf_counter()
    config = {
        "model_type": MODEL_TYPE,
        "words": len(words),
        **{key: settings[key] for key in ("width", "layers", "window")},
    }
    with atomic_path(outputs["model"]) as tmp:
        tmp.mkdir()
        save_file({key: value.contiguous() for key, value in model.cpu().state_dict().items()}, tmp / WEIGHTS)
        write_vocabulary(words, tmp / VOCABULARY)
        (tmp / CONFIG).write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    lines = int(kept.sum())
    record = {
        "kind": "cloze",
        "parameters": sum(p.numel() for p in model.parameters()),
        "vocab_size": len(words),
        "training_text": {"lines": lines, "words": word_count, "heldout_lines_left_out": len(kept) - lines},
        # Shares of the training words the vocabulary names: the rest are its unknown-word class.
        "vocabulary_coverage": float(np.mean(stream[stream < start_mark] != UNKNOWN)),
        "words_predicted": predicted,
        "epochs": predicted / word_count,
        "encode_seconds": encoded - started,
        "train_seconds": trained - encoded,
        "train_words_per_second": predicted / (trained - encoded),
        "threads": threads,
        "device": on.type,
    }
    return write_training(losses, record, outputs, log)
