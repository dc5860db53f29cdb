"""Memory: the page allocator's blocks and the slab caches behind task_struct, mm_struct, files
and kmalloc, with the kmem events."""
import time

from guest_events import EventCapture

GFP_KERNEL = 0x400 | 0x800 | 0x40 | 0x80
GFP_ACCOUNT, GFP_ZERO, GFP_COMP, GFP_HIGHUSER_MOVABLE = 0x400000, 0x100, 0x40000, GFP_KERNEL | 0x100000 | 0x02 | 0x08
MIGRATE_MOVABLE = 1
STRUCT_PAGE = 64
VMEMMAP_BASE = 0xFFFFEA0000000000


def symbol(machine, addr):
    found = machine.image.kallsyms_lookup(addr)
    return found[0].name if found else hex(addr)


def _open_files(machine, recs) -> set[int]:
    """struct files allocated in recs and not freed after."""
    live: set[int] = set()
    for r in recs:
        if r.event == "kmem:kmem_cache_alloc" and symbol(machine, r.fields["call_site"]) == "__alloc_file":
            live.add(r.fields["ptr"])
        elif r.event == "kmem:kmem_cache_free" and r.fields["name"] == b"filp":
            live.discard(r.fields["ptr"])
    return live


def test_a_program_takes_slab_objects_and_pages(make_machine, run_program):
    m = make_machine(cpus=1, workload="none")
    cap = EventCapture(m)
    cap.enable("kmem:kmem_cache_alloc", "kmem:kmem_cache_free", "kmem:mm_page_alloc", "kmem:mm_page_free",
               "kmem:kmalloc")
    run_program(m, ["cat", "/etc/hostname"])
    recs = cap.records()
    allocs = [r for r in recs if r.event == "kmem:kmem_cache_alloc"]
    tasks = [r for r in allocs if symbol(m, r.fields["call_site"]) == "alloc_task"]
    assert tasks, "the program's task_struct comes from the task_struct cache"
    task = tasks[0].fields
    assert task["bytes_alloc"] >= task["bytes_req"] and task["bytes_alloc"] % 64 == 0
    assert task["accounted"] == 1 and task["gfp_flags"] == GFP_KERNEL | GFP_ZERO and task["node"] == -1
    assert any(symbol(m, r.fields["call_site"]) == "__alloc_file" for r in allocs)
    # cat's files closed at exit: each back in the filp cache (a final fput may come a moment
    # after the exit, from the task's work or the delayed fput of a kernel thread)
    deadline = time.monotonic() + 30
    while _open_files(m, recs) and time.monotonic() < deadline:
        time.sleep(0.1)
        recs = cap.records()
    assert not _open_files(m, recs)
    # kmalloc's sizes are its caches': a power of two (or 96, 192) at least what was asked
    for r in (r for r in recs if r.event == "kmem:kmalloc"):
        size, req = r.fields["bytes_alloc"], r.fields["bytes_req"]
        assert size >= req and (size & (size - 1) == 0 or size in (96, 192)), r.fields
    pages = [r for r in recs if r.event == "kmem:mm_page_alloc"]
    stacks = [r for r in pages if r.fields["order"] == 2]
    assert stacks and stacks[0].fields["gfp_flags"] == GFP_KERNEL | GFP_ACCOUNT | GFP_ZERO
    # (a fault's page is a folio: __GFP_COMP, as 6.1's vma_alloc_folio asks)
    user = [r for r in pages if r.fields["gfp_flags"] == GFP_HIGHUSER_MOVABLE | GFP_COMP | GFP_ZERO]
    assert user and all(r.fields["migratetype"] == MIGRATE_MOVABLE and r.fields["order"] == 0 for r in user)
    # its pages go back when it exits (mmput() follows the exit the host heard of)
    user_pfns = {r.fields["pfn"] for r in user}
    recs += cap.wait_for("kmem:mm_page_free", timeout=5, where=lambda r: r.fields["pfn"] == max(user_pfns))
    freed_pfns = {r.fields["pfn"] for r in recs if r.event == "kmem:mm_page_free"}
    assert user_pfns <= freed_pfns


def test_struct_pages_live_in_the_vmemmap(make_machine, image):
    """pfn_to_page() as the page events print it: vmemmap_base + pfn * sizeof(struct page)."""
    m = make_machine(cpus=1, workload="none")
    base = image.lookup("vmemmap_base")
    assert base.type == "D" and int.from_bytes(m.read_memory(base.addr, 8), "little") == VMEMMAP_BASE
    mm_page_alloc = next(e for e in image.events if e.name == "mm_page_alloc")
    assert dict(mm_page_alloc.print_names) == {"vmemmap_base": VMEMMAP_BASE, "struct page": STRUCT_PAGE}
