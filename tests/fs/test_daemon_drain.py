"""The daemon's drain loop outlives a guest that fails: nothing the guest does ends the mount."""

from types import SimpleNamespace

import trio
import trio.testing

from tracefs_sim import daemon


class FailingGuest:
    """A guest whose doorbell wait fails `failures` times (a machine stopping under it)."""

    def __init__(self, failures: int):
        self.failures = failures

    def wait_for_data(self, timeout: float) -> bool:
        if self.failures:
            self.failures -= 1
            raise RuntimeError("guest memory unmapped")
        return True


class CountingDrain:
    def __init__(self, failures: int):
        self.calls = 0
        self.failures = failures

    def drain_once(self) -> int:
        self.calls += 1
        if self.failures:
            self.failures -= 1
            raise ValueError("bad page")
        return 0


def test_drain_loop_survives_failing_waits_and_drains(monkeypatch, caplog):
    monkeypatch.setattr(daemon, "_DRAIN_RETRY_SECONDS", 0.01)
    served = []
    tracing = SimpleNamespace(guest=FailingGuest(3), drain=CountingDrain(2),
                              ftrace_dump=SimpleNamespace(serve=lambda: served.append(1)))

    async def scenario():
        with trio.move_on_after(1.0):
            await daemon._drain_guest(tracing)

    trio.run(scenario)
    assert tracing.guest.failures == 0 and tracing.drain.failures == 0
    assert tracing.drain.calls > 2                   # it went on draining after the failures
    assert served                                    # and answering the kernel's dumps
    assert caplog.text.count("drain failed") == 5


def test_the_daemon_collects_cyclic_garbage_every_period(monkeypatch):
    """What a removed instance leaves (objects that reference each other) is freed within a
    period, not when the rarely reached oldest generation is collected."""
    import gc
    import weakref

    class Cyclic:
        pass

    gc.disable()   # the test's own collections only, and the daemon task's
    try:
        garbage = Cyclic()
        garbage.me = garbage
        gone = weakref.ref(garbage)
        del garbage

        async def scenario():
            with trio.move_on_after(25.0):   # mock time: a period and a half
                await daemon._collect_garbage(10.0)

        trio.run(scenario, clock=trio.testing.MockClock(autojump_threshold=0))
        assert gone() is None
    finally:
        gc.enable()
