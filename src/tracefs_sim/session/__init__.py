"""A session: the user's processes, in namespaces of their own, run against the emulated kernel.

`tracefs-sim shell`/`run` (cli.py) set up a private mount namespace in which the simulator is
the machine's tracefs (namespace.py) and start the daemon there. Then `launch.run()` starts the
user's program in a **PID namespace** of its own, whose pid 1 is `tracefs-sim-init`
(native/init.c):

    tracefs-sim run ──── daemon (FUSE + emulated kernel; host pids, outside the PID namespace)
       │
       └── init (pid 1: native/init.c; its own mount namespace with a /proc of the PID namespace)
             ├── PROGRAM (pid 1000: bash, under the session's seccomp filter) ── its children ...
             └── supervisor (native/supervisor.c: serves the filter's notifications)

- Pids: the session's start at 1000 (init sets ns_last_pid); the emulated kernel's own tasks
  keep the pids below, so the two never name the same task.
- The filter (native/filter.c) follows every process of the session, and never comes off. What
  a process asks of the kernel's tracing goes to the supervisor (native/answer.c) instead of
  the host kernel: a mount of tracefs or debugfs mounts the simulator; perf_event_open, bpf and
  the module calls are refused (ENOSYS) with a line on the caller's stderr until the emulated
  kernel serves them.
- Should the supervisor die, init answers the notifications itself: no session ever waits on a
  listener that nobody reads.
"""
