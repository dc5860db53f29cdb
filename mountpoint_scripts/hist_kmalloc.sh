#!/bin/bash
# Documentation/trace/histogram.rst's first example: the kernel's kmalloc calls by call site,
# with the bytes asked for and given, sorted by the bytes given. The histogram is a map in the
# emulated kernel's memory that the kmem:kmalloc tracepoint updates as it fires (Linux's
# tracing_map); reading `hist` walks it.
# Run it: tracefs-sim run mountpoint_scripts/hist_kmalloc.sh
T=/sys/kernel/tracing
echo 'hist:key=call_site.sym:val=bytes_req,bytes_alloc:sort=bytes_alloc.descending' > \
    $T/events/kmem/kmalloc/trigger
echo "== trigger:"
cat $T/events/kmem/kmalloc/trigger
for i in 1 2 3; do tracefs-sim exec cat /etc/passwd > /dev/null; done
echo "== hist:"
cat $T/events/kmem/kmalloc/hist
echo '!hist:key=call_site.sym:val=bytes_req,bytes_alloc:sort=bytes_alloc.descending' >> \
    $T/events/kmem/kmalloc/trigger
