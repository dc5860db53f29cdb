cd /sys/kernel/tracing
t() { echo "== $1"; echo "$1" >> uprobe_events; echo "rc=$?"; }
t 'p /mnt/busybox:0x1000'
t 'p:myp /mnt/busybox:0x1000 %di %si:u32 +0(%sp):string'
t 'r:myr /mnt/busybox:0x2000 $retval'
t 'p:grp/ev /mnt/busybox:0x1000%return'
t 'p /mnt/nonexist:0x10'
t 'p /mnt:0x10'
t 'p /mnt/busybox:0x10(0x20'
t 'p /mnt/busybox:0x10(0x20)x'
t 'p /mnt/busybox:0x10(zz)'
t 'p /mnt/busybox:0x10%ret'
t 'p /mnt/busybox:0x1zz'
t 'p /mnt/busybox:0x10 $arg1'
t 'p /mnt/busybox:0x10 @sym'
t 'p /mnt/busybox:0x10 @+0x10'
t 'p:myp /mnt/busybox:0x1000 %di %si:u32 +0(%sp):string'
t 'p:myp /mnt/busybox:0x1008 %di'
t 'p:myp /mnt/busybox:0x1008 %di %si:u32 +0(%sp):string'
t 'r:myp /mnt/busybox:0x1008'
t 'p:sched/sched_switch /mnt/busybox:0x1008'
t 'p:x /mnt/busybox:0x30(0x40) $comm @0x1000 @+0x10:u8 %ax:x16'
t 'p:y /mnt/busybox:0x30(0x42)'
t 'p /mnt/busybox:100'
t 'p /mnt/bus:box:0x10'
t 'p mnt:0x10'
t 'p /mnt/busybox:abc'
t 'p /mnt/busybox:0x30 +0(%di):ustring $stack0 $stack'
t 'p /mnt/busybox:0x30 $stack $stack1 %ip'
echo "== uprobe_events"; cat uprobe_events
echo "== dynamic_events"; cat dynamic_events
echo "== profile"; cat uprobe_profile
echo "== error_log"; cat error_log
ls events/uprobes events/uprobes/myp events/grp
cat events/uprobes/myp/format events/uprobes/myr/format events/grp/ev/format events/uprobes/x/format
echo "== enable big offset"
echo 'p:big /mnt/busybox:0x10000000' >> uprobe_events; echo 1 > events/uprobes/big/enable; echo "rc=$?"
echo 'p:mid /mnt/busybox:0x1001' >> uprobe_events; echo 1 > events/uprobes/mid/enable; echo "rc=$?"
cat events/uprobes/mid/enable
echo 0 > events/uprobes/mid/enable
echo '-:mid' >> uprobe_events; echo "rc=$?"
echo '-:myp /mnt/busybox:0x0000000000001000' >> uprobe_events; echo "rc=$?"
echo '-:myp /mnt/busybox:0x0000000000001008 arg1=%di' >> uprobe_events; echo "rc=$?"
cat uprobe_events
echo 1 > events/uprobes/myr/enable; echo '-:myr' >> uprobe_events; echo "rc=$?"; echo > uprobe_events; echo "rc=$?"
echo 0 > events/uprobes/myr/enable
echo > uprobe_events; echo "rc=$?"; cat uprobe_events
echo 'p:d /mnt/busybox:0x1000' >> dynamic_events; echo "rc=$?"; cat dynamic_events; echo '-:d' >> dynamic_events; echo "rc=$?"
