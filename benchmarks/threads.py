"""Neural jobs side by side on few cores: seconds a training step takes, one job alone and two at once,
under each way PyTorch's OpenMP threads may wait for one another.

    .venv/bin/python benchmarks/threads.py [--steps 25] [--words 100000]

Each job trains the cloze network (lmgap.neural.cloze_net, the pipeline's default size, two threads as
the pipeline gives it) on random windows of Zipf-distributed word ids, in a process of its own started
with the setting in its environment: GNU OpenMP's default spin count (300,000; what a job got before
lmgap.neural.model set one), 10,000, 1,000 (the pipeline's), and OMP_WAIT_POLICY=PASSIVE.
"""

import argparse
import os
import subprocess
import sys
import time

SETTINGS = {
    "spin 300,000 (GNU's default)": {"GOMP_SPINCOUNT": "300000"},
    "spin 10,000": {"GOMP_SPINCOUNT": "10000"},
    "spin 1,000 (the pipeline's)": {"GOMP_SPINCOUNT": "1000"},
    "passive": {"OMP_WAIT_POLICY": "PASSIVE"},
}


def job(steps, words):
    """One training job: print its seconds per step."""
    import numpy as np
    import torch

    from lmgap.neural.cloze_net import ClozeNet

    torch.set_num_threads(2)
    torch.manual_seed(0)
    model = ClozeNet(words, 256, 1, 0.3)
    dense = [parameter for name, parameter in model.named_parameters() if name != "embed.weight"]
    optimizers = [torch.optim.SparseAdam([model.embed.weight], lr=0.003), torch.optim.Adam(dense, lr=0.003)]
    ids = np.minimum((np.random.default_rng(0).pareto(1.0, size=(steps, 64, 34)) * 3).astype(np.int64), words)
    started = time.monotonic()
    for step in range(steps):
        windows = torch.from_numpy(ids[step])
        loss = model.out(model.window_states(windows).reshape(-1, 256), windows[:, 1:-1].reshape(-1)).loss
        for optimizer in optimizers:
            optimizer.zero_grad(set_to_none=True)
        loss.backward()
        for optimizer in optimizers:
            optimizer.step()
    print((time.monotonic() - started) / steps)


def seconds_per_step(setting, jobs, args):
    """Each of `jobs` jobs' seconds per step, started together."""
    waits = ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")
    env = {**{key: value for key, value in os.environ.items() if key not in waits}, **setting}
    command = [sys.executable, __file__, "--job", "--steps", str(args.steps), "--words", str(args.words)]
    running = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True) for _ in range(jobs)]
    return [float(process.communicate()[0]) for process in running]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--words", type=int, default=100_000)
    parser.add_argument("--job", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.job:
        return job(args.steps, args.words)
    print(f"{os.cpu_count()} cores; seconds per step of the cloze network ({args.words:,} words, 2 threads)\n")
    print("| OpenMP threads wait | one job alone | each of two at once |")
    print("|---|---:|---:|")
    for name, setting in SETTINGS.items():
        alone, pair = seconds_per_step(setting, 1, args), seconds_per_step(setting, 2, args)
        print(f"| {name} | {alone[0]:.3f} | {max(pair):.3f} |", flush=True)


if __name__ == "__main__":
    main()
