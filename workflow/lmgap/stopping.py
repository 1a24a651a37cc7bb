"""A stop requested with SIGTERM that cannot hang the run.

Snakemake's scheduler handles SIGTERM by taking its lock, the same lock its main thread holds while
it records a finished job; Python runs a signal handler in the main thread, inside whatever that
thread is doing. A SIGTERM that lands there waits for a lock its own thread holds, and the run hangs
for good, no job running, nothing said (a SIGTERM to the run's process group 0.2 s after a table job
started did so three times in three). Run in a thread of its own, the handler waits for the lock the
main thread is about to give back, and the run stops as a SIGTERM stops it otherwise.
"""

import signal
import threading


def handle_in_thread(signum=signal.SIGTERM):
    """Have the handler installed for signum run in a thread of its own, so that it never waits on the
    thread it interrupted; a default or ignored signal stays as it is."""
    handler = signal.getsignal(signum)
    if not callable(handler) or getattr(handler, "in_thread", False):
        return

    def in_thread(number, frame):
        threading.Thread(target=handler, args=(number, None), name=f"signal {number}", daemon=True).start()

    in_thread.in_thread = True
    signal.signal(signum, in_thread)


def hangup_as_term():
    """A closed terminal or a dropped ssh session (SIGHUP, which Snakemake leaves to kill it at once, the run's
    lock left and its kept tables unnamed) stops the run as SIGTERM does; not where SIGHUP is ignored (nohup),
    as its user asked the run to go on."""
    term = signal.getsignal(signal.SIGTERM)
    if signal.getsignal(signal.SIGHUP) is signal.SIG_DFL and callable(term):
        signal.signal(signal.SIGHUP, term)
