"""What the training loops here share: the learning-rate schedule, and the record of every step."""

import json
import math

import numpy as np

from ..atomic import atomic_open, write_json


def learning_rate(step, steps, peak):
    """Linear warm-up over the first tenth of the steps (at most 100), then cosine decay to a
    tenth of the peak."""
    warmup = max(1, min(100, steps // 10))
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def write_training(losses, record, outputs, log):
    """Write every step's (step, loss in nats, learning rate, seconds) to outputs' loss, and the record,
    with the mean loss of the last tenth of the steps and PyTorch's version, to its record and the log."""
    import torch

    with atomic_open(outputs["loss"]) as out:
        out.write("step\tloss_nats\tlearning_rate\tseconds\n")
        out.writelines(f"{s}\t{loss!r}\t{lr!r}\t{seconds:.3f}\n" for s, loss, lr, seconds in losses)
    last = losses[-max(1, len(losses) // 10) :]
    record = {**record, "final_loss_nats": float(np.mean([loss for _, loss, _, _ in last])), "torch": torch.__version__}
    write_json(record, outputs["record"])
    log.write(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return record
