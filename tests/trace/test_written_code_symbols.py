"""kallsyms_lookup() of code the kernel writes at run time (trace/kallsyms_file.py): an address
inside a JITed program or a trampoline is named by it, with its offset and size; the list is
asked again when an address is in none of the known ones, at most every so often."""
from tracefs_sim.trace import kallsyms_file
from tracefs_sim.trace.kallsyms_file import WrittenCodeSymbols


def test_an_address_in_written_code_is_named_and_the_list_read_again_on_a_miss(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(kallsyms_file.time, "monotonic", lambda: now[0])
    code = [("bpf_trampoline_6442", 0x2000, 0x2100), ("bpf_prog_abc_x", 0x1000, 0x1040)]
    reads = []

    def written():
        reads.append(now[0])
        return list(code)

    symbols = WrittenCodeSymbols(written)
    assert symbols.lookup(0x1010) == ("bpf_prog_abc_x", 0x10, 0x40)
    assert symbols.lookup(0x20ff) == ("bpf_trampoline_6442", 0xff, 0x100)
    assert symbols.lookup(0x1040) is None and len(reads) == 1      # a miss just after a read
    code.append(("bpf_prog_def", 0x3000, 0x3080))
    now[0] += 1
    assert symbols.lookup(0x3000) == ("bpf_prog_def", 0, 0x80) and len(reads) == 2
    assert symbols.lookup(0x0fff) is None and len(reads) == 2
