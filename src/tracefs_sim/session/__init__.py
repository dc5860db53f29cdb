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
  a process asks of the kernel's tracing goes to the supervisor instead of the host kernel: a
  mount of tracefs or debugfs mounts the simulator (native/answer.c); perf_event_open, bpf,
  syslog and /dev/kmsg are the emulated kernel's (native/serve.c), refused (ENOSYS) with a line
  on the caller's stderr when it cannot answer them; the module calls are refused so always.
- Every other call goes on on the host and is mirrored (native/mirror.c): the supervisor writes
  its record (with the bytes behind its pointers) into the session ring, and the emulated
  kernel makes the call from the caller's task (kernel_model/kernel/session.c).
- Should the supervisor die, init answers the notifications itself: no session ever waits on a
  listener that nobody reads.
"""
