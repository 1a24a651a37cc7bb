"""A SIGTERM whose handler takes a lock the interrupted thread holds, as Snakemake's scheduler's does,
hangs a process for good; run in a thread of its own (lmgap.stopping), the handler waits for the lock
and the process goes on."""

import signal
import subprocess
import sys
import textwrap

import pytest

# Snakemake's scheduler in small: its SIGTERM handler takes the lock the main thread holds while it
# records a finished job, and the main loop ends once the handler has set its flag.
SCHEDULER = textwrap.dedent(
    """
    import os, signal, sys, threading
    from lmgap.stopping import handle_in_thread

    lock, stopped = threading.Lock(), threading.Event()

    def exit_gracefully(*args):
        with lock:
            stopped.set()

    signal.signal(signal.SIGTERM, exit_gracefully)
    if sys.argv[1] == "in-thread":
        handle_in_thread()
    with lock:
        os.kill(os.getpid(), signal.SIGTERM)
    print("stopped" if stopped.wait(10) else "not stopped")
    """
)


def stop(how, timeout):
    return subprocess.run(
        [sys.executable, "-c", SCHEDULER, how], capture_output=True, text=True, timeout=timeout, check=True
    ).stdout


def test_a_sigterm_whose_handler_takes_a_held_lock_hangs_the_process():
    with pytest.raises(subprocess.TimeoutExpired):
        stop("in-main-thread", timeout=3)


def test_the_handler_in_a_thread_of_its_own_waits_for_the_lock_and_stops_the_process():
    assert stop("in-thread", timeout=30) == "stopped\n"


def test_a_default_or_ignored_signal_and_one_handled_in_a_thread_already_stay_as_they_are():
    from lmgap.stopping import handle_in_thread

    before = signal.getsignal(signal.SIGUSR1)
    try:
        for kept in (signal.SIG_DFL, signal.SIG_IGN):
            signal.signal(signal.SIGUSR1, kept)
            handle_in_thread(signal.SIGUSR1)
            assert signal.getsignal(signal.SIGUSR1) is kept
        signal.signal(signal.SIGUSR1, lambda *args: None)
        handle_in_thread(signal.SIGUSR1)
        wrapped = signal.getsignal(signal.SIGUSR1)
        handle_in_thread(signal.SIGUSR1)
        assert signal.getsignal(signal.SIGUSR1) is wrapped and wrapped.in_thread
    finally:
        signal.signal(signal.SIGUSR1, before)


HANGUP = textwrap.dedent(
    """
    import os, signal, sys, threading
    from lmgap.stopping import handle_in_thread, hangup_as_term

    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda number, frame: stopped.set())
    if sys.argv[1] == "nohup":
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    handle_in_thread()
    hangup_as_term()
    os.kill(os.getpid(), signal.SIGHUP)
    print("stopped" if stopped.wait(5) else "went on")
    """
)


@pytest.mark.parametrize("how, says", [("terminal", "stopped\n"), ("nohup", "went on\n")])
def test_a_hangup_stops_the_run_as_sigterm_does_unless_it_is_ignored(how, says):
    done = subprocess.run([sys.executable, "-c", HANGUP, how], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout == says, done.stderr
