"""power:cpu_frequency as 6.1's cpufreq core emits it when schedutil switches a cpu's frequency
with a fast-switch driver (cpufreq_driver_fast_switch): a busy cpu's frequency rises to the
driver's highest, an idle one's falls back to its lowest.  The reference VM has no cpufreq
driver, so there the events exist but never fire."""
import re
import shutil

import pytest
from simtest import quiet, section, tracefs_sim  # noqa: F401 (a fixture)

EVENT = re.compile(r"^\s+\S.*-\d+\s+\[(\d{3})\] \S{5}\s+[\d.]+: cpu_frequency: state=(\d+) cpu_id=(\d+)$")
# perf keeps a build-id cache under $HOME: the session's is a tmpfs of its own (test_perf_probe's)
PRIVATE_HOME = "mount -t tmpfs perf-home /var/tmp; export HOME=/var/tmp; cd $HOME;"
TABLE = {1000000, 1400000, 1800000, 2200000, 2600000, 3000000}   # acpi-cpufreq's _PSS here


def _events(out):
    events = [EVENT.match(line) for line in out.splitlines() if line.strip()]
    assert events and all(events), out
    assert all(m.group(1)[-1] == m.group(3) for m in events), out   # each cpu sets its own
    return [(int(m.group(3)), int(m.group(2))) for m in events]


def test_frequency_follows_the_load(quiet):
    run, guest = quiet
    run("echo 1 > events/power/cpu_frequency/enable")
    guest("progtest", "idlespin", "100000000")   # a cpu busy for ~0.2-0.7 s, the climb ~60 ms
    top = max(TABLE)
    events = _events(run("grep -v '^#' trace"))
    assert {state for _, state in events} <= TABLE, events
    busy = [cpu for cpu, state in events if state == top]
    assert busy, events                                  # the busy cpu reached the top...
    cpu = busy[-1]
    mine = [state for c, state in events if c == cpu]
    last_top = len(mine) - 1 - mine[::-1].index(top)
    assert last_top > 0 and mine[last_top - 1] < top, events   # ...from below
    # idle, woken now and then: its next update finds its utilization decayed (bounded wait)
    for _ in range(100):
        guest("sleep", "0.02")
        mine = [state for c, state in _events(run("grep -v '^#' trace")) if c == cpu]
        if len(mine) > last_top + 1:
            break
    assert len(mine) > last_top + 1 and mine[last_top + 1] < top, mine
    run("echo 0 > events/power/cpu_frequency/enable")


@pytest.mark.skipif(shutil.which("perf") is None, reason="linux-perf is not installed")
def test_perf_timechart_records_and_draws():
    """perf timechart record, in a session, asks for power:cpu_frequency, power:cpu_idle and the
    sched events: all are here; an emulated busy program's cpu climbs through the P-states in
    the recording, and the chart perf draws from it names the workload and shows them."""
    result = tracefs_sim("run", "--workload", "none", "-c", PRIVATE_HOME + """
perf timechart record tracefs-sim exec progtest idlespin 100000000 > rec.log 2>&1; echo "== record $?"
echo '== events'; perf evlist -i perf.data
echo '== script'; perf script -i perf.data -F event,trace 2>/dev/null | grep cpu_frequency
perf timechart -i perf.data -o out.svg > chart.log 2>&1; echo "== chart $?"
grep -o '>tracefs-sim:[0-9]* ([0-9.]*ms)<' out.svg | head -1; grep -o '3.00 Ghz' out.svg | head -1
""", timeout=150)
    out = result.stdout + result.stderr
    assert result.returncode == 0 and "== record 0" in out and "== chart 0" in out, out
    assert {"power:cpu_frequency", "power:cpu_idle", "sched:sched_switch"} <= set(section(out, "events")), out
    script = section(out, "script")
    assert any(re.fullmatch(r"\s*power:cpu_frequency:\s+state=3000000 cpu_id=\d+", line) for line in script), out
    # the workload perf started (its bar's label), the P-states' chart
    assert re.search(r"^>tracefs-sim:\d+ \([\d.]+ms\)<$", out, re.M) and "3.00 Ghz" in out, out
