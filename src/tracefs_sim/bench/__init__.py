"""`tracefs-sim bench`: benchmarks of the simulator, each measured several times in one run.

One module per benchmark (boot, offcost, smp, events, read, recipe, probes, ladder, mirror, progs,
perf); traced.py is the kernel with the trace core and kprobe engine wired in that probes, ladder
and events run their workload on; the runner repeats them, reduces the samples to a median and a spread,
and prints or writes them (runner.py)."""
