#!/bin/bash
# The NVMe latency path (seed 001): block_rq_issue / block_rq_complete while a program writes
# and fsyncs a file on the disk (nvme0n1, 259:0, mounted on /mnt), then the function_graph
# tracer from nvme_queue_rq down (the command built, the request started, the doorbell).
# Run it: tracefs-sim run --workload none mountpoint_scripts/nvme_latency.sh
# (with the default workload the disk writer's I/O shows too)
T=/sys/kernel/tracing
echo 0 > $T/tracing_on
echo > $T/trace
echo 1 > $T/events/block/block_rq_issue/enable
echo 1 > $T/events/block/block_rq_complete/enable
echo 1 > $T/tracing_on
tracefs-sim exec diskwriter /mnt/nvme-recipe 16384 fsync
echo 0 > $T/tracing_on
echo '== events'
grep -E 'block_rq_(issue|complete):' $T/trace | head -n 20
echo 0 > $T/events/block/enable
echo > $T/trace
echo nvme_queue_rq > $T/set_graph_function
echo 0 > $T/options/funcgraph-irqs          # a timer tick inside it would hide the rest
echo function_graph > $T/current_tracer
echo 1 > $T/tracing_on
tracefs-sim exec diskwriter /mnt/nvme-recipe 8192 fsync
echo 0 > $T/tracing_on
echo '== graph'
head -n 80 $T/trace
echo nop > $T/current_tracer
echo > $T/set_graph_function
echo 1 > $T/options/funcgraph-irqs
echo 1 > $T/tracing_on
