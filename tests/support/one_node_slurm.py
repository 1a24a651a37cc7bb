"""A real one-node SLURM cluster on this machine, for the SLURM test and the sweep benchmark (test
support, which benchmarks/sweep.py borrows):
Debian's slurm-wlm and munge, munged, slurmctld and slurmd started by PID and stopped by PID,
their state in a scratch folder.

Facts this relies on (Debian's SLURM 22.05, snakemake-executor-plugin-slurm 2.8.0):
- PID 1 is not systemd in containers, so the daemons are started directly, in the foreground.
- Without slurmdbd, sacct knows no jobs and the plugin's default status checks wait forever:
  runs use `--slurm-status-command squeue`, which needs finished jobs kept (MinJobAge) for more
  than three times the first status check's delay, or the plugin goes back to sacct.
- The job step plugin drops SLURM_CONF for the srun inside each job, which then reads
  /etc/slurm/slurm.conf: the cluster writes it there. Where the machine has one already, its
  own SLURM is used when it answers (a cluster's login node; each run's jobs are told apart by
  their name); else that file is set aside while this cluster runs, and put back.
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ["slurm-wlm", "munge"]
TOOLS = ["munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "srun"]
SYSTEM_CONF = Path("/etc/slurm/slurm.conf")
SBIN_PATH = os.environ["PATH"] + ":/usr/sbin:/sbin"
# Seconds before the executor's first status check of a job, and after each finished one. Each
# check that finds no job finished adds 10 s to the next wait (the plugin's back-off): longer than
# a small job takes here (6 to 11 s, the workflow parsed twice in each, with both cores loaded),
# so that one check finds a wave of jobs done.
STATUS_DELAY_S = 12


class SlurmUnavailable(RuntimeError):
    """SLURM is installed but did not start: a fault of the set-up, which a test reports."""


class SlurmNotInstalled(SlurmUnavailable):
    """SLURM is missing and this user cannot install it: a machine a test skips on, saying why."""


def ensure_slurm():
    """Debian's SLURM and munge, installed with apt when missing (as root, as CI runs)."""
    if all(shutil.which(tool, path=SBIN_PATH) for tool in TOOLS):
        return
    if os.geteuid() != 0:
        raise SlurmNotInstalled(f"SLURM is not installed; install it with: sudo apt-get install {' '.join(PACKAGES)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES]
    if subprocess.run(install, env=env, capture_output=True).returncode:
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True)
        done = subprocess.run(install, env=env, capture_output=True, text=True)
        if done.returncode:
            raise SlurmNotInstalled(f"apt-get could not install {' '.join(PACKAGES)}: {done.stderr.strip()[-500:]}")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cluster_conf(state, host, cpus, memory_mb):
    """One node on this machine, munge through its own socket, no accounting."""
    return "\n".join(
        [
            "ClusterName=lmgap-one-node",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={free_port()}",
            f"SlurmdPort={free_port()}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={state}/munge.socket",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"StateSaveLocation={state}/ctld",
            f"SlurmdSpoolDir={state}/d",
            f"SlurmctldPidFile={state}/ctld.pid",
            f"SlurmdPidFile={state}/d.pid",
            f"SlurmctldLogFile={state}/ctld.log",
            f"SlurmdLogFile={state}/d.log",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "MpiDefault=none",
            "ReturnToService=2",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            # squeue must still list finished jobs when the executor (and a test) asks.
            "MinJobAge=3600",
            # Without it a job that asks for no memory takes the whole node.
            "DefMemPerCPU=1000",
            # The CPUs given may exceed the machine's: a job is mostly Snakemake starting up.
            "SlurmdParameters=config_overrides",
            f"NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN",
            f"PartitionName=main Nodes={host} Default=YES MaxTime=INFINITE State=UP",
            "",
        ]
    )


def answers(env):
    """Whether the SLURM env points at has a node up to take jobs."""
    try:
        listed = subprocess.run(["sinfo", "-h", "-o", "%T"], env=env, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return False
    return listed.returncode == 0 and any(state in listed.stdout for state in ("idle", "mix", "alloc"))


@contextlib.contextmanager
def one_node_slurm(state, cpus=8):
    """A SLURM to run jobs on: the machine's own where it has one that answers, else a cluster
    started here with its state in the folder state; yield the environment its clients need.
    Stops exactly the daemons started, and leaves /etc/slurm/slurm.conf as it found it."""
    ensure_slurm()
    machine = {**os.environ, "PATH": SBIN_PATH}
    if SYSTEM_CONF.exists() and answers(machine):
        yield machine
        return
    aside = SYSTEM_CONF.with_name(SYSTEM_CONF.name + ".lmgap-aside")
    if SYSTEM_CONF.exists():
        SYSTEM_CONF.rename(aside)
    try:
        with own_cluster(Path(state), cpus) as env:
            yield env
    finally:
        if aside.exists():
            aside.replace(SYSTEM_CONF)


@contextlib.contextmanager
def own_cluster(state, cpus):
    """munged, slurmctld and slurmd of one node on this machine, their slurm.conf also where the
    job steps read it."""
    for folder in (state / "ctld", state / "d"):
        folder.mkdir(parents=True)
    state.chmod(0o700)
    host = socket.gethostname().split(".")[0]
    memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20 // 2
    conf = state / "slurm.conf"
    conf.write_text(cluster_conf(state, host, cpus, memory_mb))
    env = {**os.environ, "SLURM_CONF": str(conf), "PATH": SBIN_PATH}
    subprocess.run(["mungekey", "--create", "--keyfile", str(state / "munge.key")], check=True, env=env)
    munged = [
        "munged",
        "-F",
        "--force",
        f"--socket={state}/munge.socket",
        f"--key-file={state}/munge.key",
        f"--log-file={state}/munged.log",
        f"--pid-file={state}/munged.pid",
        f"--seed-file={state}/munge.seed",
    ]
    started = []
    SYSTEM_CONF.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(conf, SYSTEM_CONF)
    try:
        for command in (munged, ["slurmctld", "-D", "-i", "-f", str(conf)], ["slurmd", "-D", "-f", str(conf)]):
            started.append(subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            time.sleep(1)
        deadline = time.monotonic() + 60
        while "idle" not in subprocess.run(["sinfo", "-h", "-o", "%T"], env=env, capture_output=True, text=True).stdout:
            dead = [process.args[0] for process in started if process.poll() is not None]
            if dead or time.monotonic() > deadline:
                raise SlurmUnavailable(f"SLURM did not start (stopped: {dead}); its logs are in {state}")
            time.sleep(0.5)
        yield env
    finally:
        for process in reversed(started):
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        SYSTEM_CONF.unlink()


# The job names of this process's runs begin with it, which tells them from other users' jobs on
# a shared cluster (and from earlier runs').
RUN_NAME = f"lmgap{os.getpid()}"


def snakemake_on_slurm(snakemake, workdir):
    """The command that runs the workflow in workdir through profiles/slurm on this cluster;
    `timeout -k` because Snakemake ignores a plain SIGTERM while jobs run."""
    return [
        "timeout",
        "-k",
        "30",
        "1800",
        str(snakemake),
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--profile",
        str(REPO / "profiles/slurm"),
        "--slurm-status-command",
        "squeue",
        "--slurm-init-seconds-before-status-checks",
        str(STATUS_DELAY_S),
        "--slurm-jobname-prefix",
        RUN_NAME,
    ]


def jobs_recorded(env):
    """SLURM's own record of this process's runs' jobs: (comment, state, CPUs, memory, start,
    end), the times as SLURM prints them (ISO 8601, to the second)."""
    listed = subprocess.run(
        ["squeue", "--states=all", "-h", "-o", "%j|%k|%T|%C|%m|%S|%e"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [tuple(line.split("|")[1:]) for line in listed if line.startswith(f"{RUN_NAME}_")]
