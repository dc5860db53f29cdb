"""start_cache: a KernelImage loaded from its start cache is the one computed from the ELF; a
cache made from another image or broken is not used."""
import os
import pickle
import shutil

import pytest

from tracefs_sim.machine import start_cache
from tracefs_sim.machine.image import KernelImage


def _facts(image: KernelImage):
    return (image.symbols, image.kallsyms.table, image.events, image.mcount_sites, image.debug_comp_dir,
            [image.event_file(e) for e in image.events[:50]],
            image.kallsyms_lookup(image.addr("vfs_read") + 3), image.symbolize(image.addr("vfs_read") + 3))


@pytest.fixture
def copy(vmlinux, tmp_path):
    """The kernel image in a directory of its own (no cache yet)."""
    path = str(tmp_path / "vmlinux")
    shutil.copyfile(vmlinux, path)
    return path


def test_the_first_start_writes_the_cache_and_the_next_loads_the_same(copy, monkeypatch):
    first = KernelImage(copy)
    assert os.path.exists(copy + start_cache.IMAGE_SUFFIX)
    loaded = []
    real_load = start_cache.load
    monkeypatch.setattr(start_cache, "load", lambda *a: loaded.append(real_load(*a)) or loaded[-1])
    second = KernelImage(copy)
    assert loaded and loaded[0] is not None  # (the second came from the cache)
    assert _facts(second) == _facts(first)


def test_a_cache_made_from_another_image_or_code_is_not_used(copy):
    first = KernelImage(copy)
    with open(copy + start_cache.IMAGE_SUFFIX, "rb") as f:
        made_from, values = pickle.load(f)
    values["symbols"] = values["symbols"][:10]
    with open(copy + start_cache.IMAGE_SUFFIX, "wb") as f:
        pickle.dump((bytes(len(made_from)), values), f)
    assert _facts(KernelImage(copy)) == _facts(first)


def test_the_key_hashes_the_inputs_and_the_code(tmp_path):
    code, other_code = tmp_path / "a.py", tmp_path / "b.py"
    code.write_text("x = 1\n")
    other_code.write_text("x = 2\n")
    keys = {start_cache.key((notes, *parts), [str(source)])
            for notes in (b"build-id 1", b"build-id 2") for parts in ((b"sorted",), (b"unsorted",))
            for source in (code, other_code)}
    assert len(keys) == 8
    assert start_cache.key((b"ab", b"c"), [str(code)]) != start_cache.key((b"a", b"bc"), [str(code)])
    assert start_cache.key((b"id",), [str(tmp_path / "absent.py")]) is None   # no code: no cache


def test_a_broken_cache_is_made_again(copy):
    first = KernelImage(copy)
    with open(copy + start_cache.IMAGE_SUFFIX, "r+b") as f:
        f.truncate(100)
    assert _facts(KernelImage(copy)) == _facts(first)
    with open(copy + start_cache.IMAGE_SUFFIX, "rb") as f:
        assert pickle.load(f)[1]["symbols"] == first.symbols  # (written again, whole)
