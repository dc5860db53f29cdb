from tracefs_sim.trace.clock import TraceClocks


def test_order_and_units():
    clocks = TraceClocks(lambda: 3_577_834_000, realtime_at_boot_ns=1_795_936_755_000_000_000,
                         boottime_at_boot_ns=23_288_000_000_000)
    assert [c.name for c in clocks] == ["local", "global", "counter", "uptime", "perf", "mono",
                                        "mono_raw", "boot", "tai", "x86-tsc"]
    assert [c.name for c in clocks if not c.in_ns] == ["counter", "uptime", "x86-tsc"]
    assert clocks.default.name == "local"
    assert clocks.get("local").read() == 3_577_834_000
    assert clocks.get("uptime").read() == 357          # USER_HZ ticks
    # TAI is UTC until adjtimex sets an offset (a real 6.1's tai trace clock reads as `date +%s`)
    assert clocks.get("tai").read() == 1_795_936_755_000_000_000 + 3_577_834_000
    # the boot clock counts from the host's CLOCK_BOOTTIME at the machine's boot (offs_boot)
    assert clocks.get("boot").read() == 23_288_000_000_000 + 3_577_834_000
    assert clocks.get("mono").read() == 3_577_834_000
    assert clocks.get("x86-tsc").read() > clocks.get("local").read()
    assert clocks.get("nosuch") is None


def test_counter_increments_per_reading():
    counter = TraceClocks(lambda: 0).get("counter")
    assert [counter.read() for _ in range(3)] == [1, 2, 3]
