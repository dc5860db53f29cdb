"""available_filter_functions names only functions Linux 6.1 traces: what a user or a tool
reads there, it can set a filter or a probe on in 6.1 too.  The model's own glue (the session
bridge, the host's files, the benchmark's workload) and the helpers 6.1 inlines, builds in lib/
or marks notrace are not traced here either (kernel_model/Makefile's NOTRACE_SRC, notrace,
inline)."""
from pathlib import Path

LINUX_61 = Path(__file__).resolve().parents[1] / "data" / "linux-6.1-available-filter-functions.txt"

# The names that stay, each with why.
ALLOWED = {
    # drivers/nvme/host: modules in Debian's 6.1 (nvme-core.ko, nvme.ko), traceable there once
    # loaded (the reference was captured with none); the NVMe recipe graphs nvme_queue_rq
    "nvme_cleanup_cmd": "nvme-core.ko",
    "nvme_complete_rq": "nvme-core.ko",
    "nvme_setup_cmd": "nvme-core.ko",
    "nvme_commit_rqs": "nvme.ko",
    "nvme_irq": "nvme.ko",
    "nvme_map_data": "nvme.ko",
    "nvme_pci_complete_rq": "nvme.ko",
    "nvme_prep_rq": "nvme.ko",
    "nvme_probe": "nvme.ko",
    "nvme_queue_rq": "nvme.ko",
    # 6.1's GCC cloned these (IPA-CP/SRA, partial inlining), which the Makefile turns off but
    # for the files where it makes 6.1's clones and no others: the plain name does 6.1's job
    "__btf_name_by_offset": "__btf_name_by_offset.part.0 in 6.1",
    "__netif_receive_skb_core": "__netif_receive_skb_core.constprop.0 in 6.1",
    "copy_strings": "copy_strings.isra.0 in 6.1",
    "count": "count.constprop.0.isra.0 in 6.1",
    "do_execveat_common": "do_execveat_common.isra.0 in 6.1",
    "event_sched_in": "event_sched_in.part.0 in 6.1",
    "inherit_event": "inherit_event.constprop.0 in 6.1",
    "invoke_bpf_prog": "invoke_bpf_prog.constprop.0.isra.0 in 6.1",
    "perf_event_exit_event": "perf_event_exit_event.constprop.0 in 6.1",
    "do_sigaltstack": "do_sigaltstack.constprop.0 in 6.1",
}


def linux_61_functions() -> set[str]:
    return {line for line in LINUX_61.read_text().splitlines() if line and not line.startswith("#")}


def test_every_traceable_function_is_one_6_1_traces(image):
    traceable_61 = linux_61_functions()
    ours = set(image.mcount_sites)
    assert len(ours) > 2500
    extra = ours - traceable_61 - set(ALLOWED)
    assert not extra, sorted(extra)


def test_the_allowed_extras_are_still_needed(image):
    """An allowed name that is no longer traceable here, or that 6.1 traces after all, goes
    from the list."""
    traceable_61 = linux_61_functions()
    ours = set(image.mcount_sites)
    assert not set(ALLOWED) - ours, sorted(set(ALLOWED) - ours)
    assert not set(ALLOWED) & traceable_61, sorted(set(ALLOWED) & traceable_61)


def test_6_1s_helpers_it_does_not_trace_are_not_traced_here(image):
    """Inlines that GCC keeps out of line (6.1's __mod_timer, sock_put: in kallsyms, never
    sites), lib/ (memcmp, scnprintf), the uaccess copies and the model's glue."""
    sites = set(image.mcount_sites)
    for name in ("__mod_timer", "sock_put", "memcmp", "scnprintf", "strncpy_from_user", "_copy_to_iter",
                 "copy_to_user", "access_ok", "start_secondary", "hostfs_read_iter", "session_execve"):
        assert image.lookup(name) is not None and name not in sites, name
    assert {"__dev_queue_xmit", "bpf_user_rnd_u32", "bpf_prog_get", "bpf_map_get",
            "__block_commit_write.constprop.0.isra.0", "btf_type_needs_resolve.isra.0",
            "env_type_is_resolve_sink.isra.0"} <= sites
