"""Start-up and off-cost benchmarks: moved to the package, `tracefs-sim bench boot off-cost`."""
import sys
from tracefs_sim.cli import main
sys.exit(main(["bench", "boot", "off-cost", *sys.argv[1:]]))
