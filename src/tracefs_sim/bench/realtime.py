"""Real-time scheduling for the benchmarks' threads that hand the guest's ring pages back.

The guest's ring holds 64 pages per CPU: a few milliseconds of events with the function
tracer on everything. Under load from elsewhere on the box a normal thread may wait
milliseconds to be scheduled after the doorbell, longer than that: the guest then loses
events, and a timed run is set aside. A real-time thread is scheduled at once.
"""

import os
import threading


def realtime_if_permitted() -> None:
    """Run the calling thread under SCHED_FIFO when the host allows it (root does); otherwise
    leave it as it is (losses then show in the counts of dropped events)."""
    try:
        os.sched_setscheduler(threading.get_native_id(), os.SCHED_FIFO, os.sched_param(1))
    except (OSError, AttributeError):  # not permitted, or not Linux
        pass
