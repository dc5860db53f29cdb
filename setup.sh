#!/usr/bin/env bash
# Installs what tracefs-sim needs on a fresh Debian machine (as root) and builds the
# emulated kernel. Idempotent: a second run only checks, so the README commands can
# always start with it.
set -euo pipefail
cd "$(dirname "$0")"

need_pkgs=()
# The first line builds and serves the simulator (musl-tools: the kernel's musl test
# program; pahole: the kernel's BTF; cpio: its boot file tree); the second is the real clients the integration tests
# run against it (inside the private namespace only), and busybox-static, the shell `exec` tests run;
# linux-headers-amd64 (Debian 12's: 6.1) is what BCC compiles its programs against in a session.
for pkg in libfuse3-dev fuse3 pkg-config gcc make python3-venv python3-dev musl-tools pahole cpio \
           trace-cmd linux-perf perf-tools-unstable bpftrace bpftool busybox-static bpfcc-tools python3-bpfcc libbpf-tools \
           linux-headers-amd64; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || need_pkgs+=("$pkg")
done
if ((${#need_pkgs[@]})); then
    echo "setup: installing ${need_pkgs[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# the package, its native code built by its own build (setup.py), into the venv
stamp=.venv/.installed-package
if [ ! -f "$stamp" ] || ! cat pyproject.toml setup.py | cmp -s - "$stamp"; then
    .venv/bin/pip install -q --upgrade pip >/dev/null
    .venv/bin/pip install -q -e '.[test]'
    cat pyproject.toml setup.py > "$stamp"
fi
# native code whose sources changed since: rebuilt in place (nothing to do when none did)
PYTHONWARNINGS=ignore .venv/bin/python setup.py -q build_ext --inplace
# the package's bytecode, as an install compiles it (an editable one does not): each start
# then reads it instead of compiling ~100 modules (0.3 s), even where PYTHONDONTWRITEBYTECODE is set
.venv/bin/python -m compileall -q src/tracefs_sim >/dev/null

# the emulated kernel
make -s -C kernel_model

# The kernel's own ftrace selftests (tools/testing/selftests/ftrace of Debian's 6.1 source), which
# tests/integration/test_ftracetest.py runs in a session: only that directory of the
# linux-source-6.1 package is kept, in build/ (not a failure when the package cannot be had: the
# test then says so).
ftracetest=build/ftracetest-6.1
if [ ! -x "$ftracetest/ftracetest" ]; then
    tmp=$(mktemp -d)
    if (cd "$tmp" && { apt-get download -qq linux-source-6.1 2>/dev/null ||
                       { apt-get update -qq && apt-get download -qq linux-source-6.1; }; }) >/dev/null; then
        dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.1_*.deb |
            tar -xO --wildcards '*/linux-source-6.1.tar.xz' |
            tar -xJ -C "$tmp" --wildcards 'linux-source-6.1/tools/testing/selftests/ftrace/*'
        mkdir -p build && rm -rf "$ftracetest" &&
            mv "$tmp/linux-source-6.1/tools/testing/selftests/ftrace" "$ftracetest"
    else
        echo "setup: linux-source-6.1 not available: the ftracetest test will be skipped" >&2
    fi
    rm -rf "$tmp"
fi
