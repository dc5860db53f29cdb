cd /sys/kernel/tracing
t() { echo "== $1"; echo "$1" >> uprobe_events; echo "rc=$?"; cat error_log; echo > error_log; }
t 'p /mnt/nonexist:0x10'
t 'p /mnt:0x10'
t 'p /mnt/busybox:0x10(0x20'
t 'p /mnt/busybox:0x10(0x20)x'
t 'p /mnt/busybox:0x10(zz)'
t 'p /mnt/busybox:0x10%ret'
t 'p /mnt/busybox:0x10%return(0x20)'
t 'p /mnt/busybox:0x10(0x20)%return'
t 'p /mnt/busybox:0x30 +0(%di):ustring $stack0 $stack'
t 'p /mnt/busybox:0x30 $stack $stack1 %ip'
t 'p /mnt/busybox:0x30 $stack1'
t 'p /mnt/busybox:0x30 %ip'
t 'r /mnt/busybox:0x30 $retval'
t 'p /mnt/busybox:0x30 $retval'
t 'p /mnt/busybox:0x30 @+0x10(%di)'
t 'p /mnt/busybox:0x30 +0(@+0x10):string'
t 'p /mnt/busybox:0x30 $comm:string'
t 'p:x /mnt/busybox:0x30(0x40)'
t 'p:y /mnt/busybox:0x30(0x42)'
t 'p:z /mnt/busybox:0x30(0x41)'
t 'p:w /mnt/busybox:0x30 %ax'
t 'p:w /mnt/busybox:0x30(0x40) %ax'
t 'r:w /mnt/busybox:0x30'
t 'p:a/ /mnt/busybox:0x30'
t 'p:/a /mnt/busybox:0x30'
t 'p: /mnt/busybox:0x30'
t 'r:a /mnt/busybox:0x30%return'
t 'p:b /mnt/busybox-x:0x30'
t 'p:b /mnt/./busybox:0x30'
t 'p:c /mnt/busybox:0x30 +0(%sp):symstr'
t 'p:c1 /mnt/busybox:0x30 +0(%sp):u8[3]'
t 'p:c2 /mnt/busybox:0x30 -1'
t 'p:c3 /mnt/busybox:-1'
t 'p:c4 /mnt/busybox:0x30 \"abc":string'
t 'p /mnt/busybox:0'
cat uprobe_events
echo > uprobe_events; echo rc=$?
echo 'p:ent /mnt/busybox:0xebf0 sp=%sp argc=+0(%sp):u64 argv0=+0(+8(%sp)):string c=$comm s=$stack0 u=+0(+8(%sp)):ustring f=@+0x1000:x32' > uprobe_events; echo rc=$?
echo 'p:ent2 /mnt/busybox:0xebf0' >> uprobe_events
echo 1 > events/uprobes/enable
/mnt/busybox true; /mnt/busybox echo hi
cat uprobe_profile
echo 0 > events/uprobes/enable
cat trace | grep -v '^#'
echo 1 > options/sym-addr
echo 1 > options/sym-offset
cat trace | grep -v '^#' | tail -1
