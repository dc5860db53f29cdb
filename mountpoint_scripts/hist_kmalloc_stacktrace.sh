#!/bin/bash
# Documentation/trace/histogram.rst's stacktrace key: the kernel's kmalloc calls by the stack
# that led to them, with the bytes asked for and given, sorted by the bytes given. Each stack is
# walked in the emulated kernel as kmem:kmalloc fires, and printed a frame a line.
# Run it: tracefs-sim run mountpoint_scripts/hist_kmalloc_stacktrace.sh
T=/sys/kernel/tracing
echo 'hist:keys=stacktrace:values=bytes_req,bytes_alloc:sort=bytes_alloc' > $T/events/kmem/kmalloc/trigger
echo "== trigger:"
cat $T/events/kmem/kmalloc/trigger
for i in 1 2 3; do tracefs-sim exec cat /etc/passwd > /dev/null; done
echo "== hist:"
cat $T/events/kmem/kmalloc/hist
echo '!hist:keys=stacktrace:values=bytes_req,bytes_alloc:sort=bytes_alloc' >> $T/events/kmem/kmalloc/trigger
