"""`tracefs-sim bench`: benchmarks of the simulator, each measured several times in one run.

One module per benchmark (boot, offcost, smp, recipe); the runner repeats them, reduces the
samples to a median and a spread, and prints or writes them (runner.py)."""
