#!/bin/bash
# perf-tools' tcpretrans (Debian perf-tools-unstable) while a program sends to a reader slower
# than it: its kprobe on tcp_retransmit_skb() sees each segment the emulated kernel's TCP sends
# again.  The socket details it looks up in /proc/net/tcp are the host's (a session's
# processes read the host's /proc/net), so the addresses show as "-".
# Run it: tracefs-sim run --workload none mountpoint_scripts/session_tcpretrans.sh
# perf-tools take a lock file, /var/tmp/.ftrace-lock, meant for the host's real ftrace: a private
# /var/tmp (this session's mount namespace only) keeps the two apart.
mount -t tmpfs perf-tools-lock /var/tmp
(sleep 1; tracefs-sim exec nettest slow > /dev/null) &
timeout 8 tcpretrans-perf 2>&1 | head -4
wait
