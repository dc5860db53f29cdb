/*
 * The host ABI table: every layout constant the host (src/tracefs_sim) needs to
 * reach the tables it shares with this kernel, by name, with its value as this
 * build has it.  The host reads the table from the image at load
 * (KernelImage.abi) instead of mirroring the headers by hand.
 *
 * The table is a section that is not loaded (no flags: the section-name suffix
 * comments out the compiler's own), so it changes no address of the image.
 */
#include "kernel.h"
#include "hostif.h"
#include "trace/ftrace.h"
#include "trace/ftrace_frame.h"
#include "trace/ftrace_dump.h"
#include "trace/probe_stage.h"
#include "trace/kprobe_perf.h"
#include "kernel_request.h"
#include "trace/uprobe_perf.h"
#include "trace/ring.h"
#include "trace/trace.h"
#include "trace/trace_pid.h"
#include "trace/trigger.h"
#include "trace/tracing_map.h"
#include "trace/synth.h"
#include "uprobes.h"
#include "timer.h"
#include "uapi/session_ring.h"
#include "mm.h"
#include "fs.h"
#include "bpf_jit.h"
#include "blkdev.h"

struct host_abi_entry {
	char name[56];
	u64 value;
};

/* (names pasted and quoted here, before the arguments expand) */
#define HOST_ABI(id, name, value) \
	static const struct host_abi_entry host_abi_##id \
	__attribute__((used, aligned(8), section(".host_abi, \"\", @progbits #"))) = { name, (value) }
#define HOST_ABI_CONST(name) HOST_ABI(const_##name, #name, name)
#define HOST_ABI_SIZE(type) HOST_ABI(sizeof_##type, "sizeof(" #type ")", sizeof(struct type))
#define HOST_ABI_OFFSET(type, field) HOST_ABI(type##__##field, #type "." #field, offsetof(struct type, field))

/* include/hostif.h */
HOST_ABI_CONST(NR_CPUS);

/* include/trace/ring.h: the rings of every (slot, cpu) */
HOST_ABI_CONST(TRACE_SLOTS);
HOST_ABI_CONST(TRACE_SLOT_WORDS);
HOST_ABI_CONST(TRACE_SLOT_EXT);
HOST_ABI_CONST(TRACE_WORD_SLOTS);
HOST_ABI_CONST(TRACE_EXT_TYPES);
HOST_ABI_CONST(TRACE_RING_PAGES);
HOST_ABI_CONST(BUF_PAGE_HDR_SIZE);
HOST_ABI_SIZE(buffer_data_page);
HOST_ABI_OFFSET(buffer_data_page, commit);
HOST_ABI_SIZE(trace_ring);
HOST_ABI_OFFSET(trace_ring, seq);
HOST_ABI_OFFSET(trace_ring, released);
HOST_ABI_OFFSET(trace_ring, lost);
HOST_ABI_OFFSET(trace_ring, closed);
HOST_ABI_OFFSET(trace_ring, reset_req);
HOST_ABI_OFFSET(trace_ring, pages);
HOST_ABI_OFFSET(trace_ring, page_lost);
HOST_ABI_SIZE(trace_control);
HOST_ABI_OFFSET(trace_control, recording);
HOST_ABI_OFFSET(trace_control, rings);
HOST_ABI_OFFSET(trace_control, cpu_slots);
HOST_ABI_OFFSET(trace_control, stack_opts);
HOST_ABI_OFFSET(trace_control, ustack_opts);
HOST_ABI_OFFSET(trace_control, stack_slots);
HOST_ABI_OFFSET(trace_control, stack_opts_ext);
HOST_ABI_OFFSET(trace_control, ustack_opts_ext);
HOST_ABI_OFFSET(trace_control, recording_ext);
HOST_ABI_OFFSET(trace_control, cpu_slots_ext);
HOST_ABI_OFFSET(trace_control, ext_rings);
HOST_ABI_SIZE(trace_event_file);
HOST_ABI_OFFSET(trace_event_file, slots);
HOST_ABI_OFFSET(trace_event_file, triggers);
HOST_ABI_OFFSET(trace_event_file, type);

/* include/hostif.h: the doorbell ports, the per-CPU area's head, the request mailbox and the
 * HPET (machine/hostif.py checks its copies against these) */
HOST_ABI_CONST(PORT_IPI);
HOST_ABI_CONST(PORT_WRITE);
HOST_ABI_CONST(PORT_EXIT);
HOST_ABI_CONST(PORT_PANIC);
HOST_ABI_CONST(PORT_READY);
HOST_ABI_CONST(PORT_SPAWNED);
HOST_ABI_CONST(PORT_IDLE);
HOST_ABI_CONST(PORT_TRACE);
HOST_ABI_CONST(PORT_CODE);
HOST_ABI_CONST(PORT_IPI_TIMER);
HOST_ABI_CONST(PORT_CONSOLE);
HOST_ABI_CONST(PORT_SESSION_REPLY);
HOST_ABI_CONST(PORT_HOSTFS);
HOST_ABI_CONST(PORT_TLB);
HOST_ABI_CONST(PORT_UPROBE);
HOST_ABI_CONST(PORT_PERF_WAKEUP);
HOST_ABI_CONST(PORT_STDIN);
HOST_ABI_CONST(PORT_PMU);
HOST_ABI_CONST(PORT_REPLY);
HOST_ABI_CONST(PORT_TRACE_FULL);
HOST_ABI_CONST(PORT_YIELD);
HOST_ABI_CONST(PORT_FENCE);
HOST_ABI_OFFSET(hostif_cpu, self);
HOST_ABI_OFFSET(hostif_cpu, cpu);
HOST_ABI_OFFSET(hostif_cpu, top_of_stack);
HOST_ABI_OFFSET(hostif_cpu, user_rsp);
HOST_ABI_OFFSET(hostif_cpu, now_ns);
HOST_ABI_OFFSET(hostif_cpu, next_event_ns);
HOST_ABI_OFFSET(hostif_cpu, db_arg);
HOST_ABI_OFFSET(hostif_cpu, user_state);
HOST_ABI_OFFSET(hostif_cpu, pmu);
HOST_ABI_OFFSET(hostif_cpu, now_tsc);
HOST_ABI_CONST(HOST_REQ_SLOTS);
HOST_ABI_CONST(HOST_REQ_ARGV);
HOST_ABI_CONST(HOST_REQ_TRACE_SLOT);
HOST_ABI_CONST(HOST_REQ_TRACE_MARKER);
HOST_ABI_CONST(HOST_REQ_SYSCTL);
HOST_ABI_CONST(HOST_REQ_BLK_TRACE_ATTR);
HOST_ABI_CONST(HOST_BLK_TRACE_STORE);
/* the disks (block/genhd.c's disks[]), whose names and numbers the host lists in /sys/block */
HOST_ABI_CONST(MAX_DISKS);
HOST_ABI_CONST(DISK_NAME_LEN);
HOST_ABI_OFFSET(gendisk, major);
HOST_ABI_OFFSET(gendisk, first_minor);
HOST_ABI_OFFSET(gendisk, disk_name);
HOST_ABI_CONST(HOST_SYSCTL_BPF_JIT_ENABLE);
HOST_ABI_CONST(HOST_SYSCTL_BPF_STATS_ENABLED);
HOST_ABI_CONST(HOST_SYSCTL_UNPRIVILEGED_BPF_DISABLED);
HOST_ABI_CONST(HOST_SPAWN_STDIN);
HOST_ABI_SIZE(host_request);
HOST_ABI_OFFSET(hostif_hpet, deadline);
HOST_ABI_OFFSET(hostif_hpet, cpu);
HOST_ABI_OFFSET(hostif_hpet, vector);
HOST_ABI_OFFSET(boot_params, boot_monotonic_ns);
HOST_ABI_OFFSET(boot_params, perf_pool_big_count);
HOST_ABI_OFFSET(boot_params, boot_boottime_ns);
HOST_ABI_OFFSET(hostif_pmu, nmi_stack);
HOST_ABI_CONST(PMU_NMI_STACK_SIZE);

/* include/kernel.h, timer.h: a task's kernel stack, the tick */
HOST_ABI_CONST(THREAD_SIZE);
HOST_ABI_CONST(HZ);

/* include/uapi/session_ring.h: the counters the daemon reads */
HOST_ABI_OFFSET(session_ring, lost);
HOST_ABI_OFFSET(session_ring, produced);
HOST_ABI_OFFSET(session_ring, retired);
HOST_ABI_OFFSET(session_ring, retired_upto);

/* include/kernel_request.h: the kernel's requests to the host (PORT_KERNEL_REQ) */
HOST_ABI_CONST(PORT_KERNEL_REQ);
HOST_ABI_CONST(KERNEL_REQ_KPROBE_REGISTER);
HOST_ABI_CONST(KERNEL_REQ_FTRACE_DIRECT);
HOST_ABI_CONST(KERNEL_REQ_EVENT_ENABLE);
HOST_ABI_CONST(KERNEL_REQ_KPROBE_UNREGISTER);
HOST_ABI_CONST(KERNEL_REQ_KPROBE_PERF_OPEN);
HOST_ABI_CONST(KERNEL_REQ_KPROBE_PERF_CLOSE);
HOST_ABI_CONST(KERNEL_REQ_UPROBE_REGISTER);
HOST_ABI_CONST(KERNEL_REQ_UPROBE_UNREGISTER);
HOST_ABI_CONST(KERNEL_REQ_NAME_LEN);
HOST_ABI_CONST(PERF_TYPE_KPROBE);
HOST_ABI_CONST(PERF_TYPE_UPROBE);
HOST_ABI_CONST(UPROBE_PERF_CONSUMER);
HOST_ABI_CONST(UPROBE_PERF_MAX);
HOST_ABI_SIZE(kernel_req);
HOST_ABI_OFFSET(kernel_req, op);
HOST_ABI_OFFSET(kernel_req, is_return);
HOST_ABI_OFFSET(kernel_req, addr);
HOST_ABI_OFFSET(kernel_req, offset);
HOST_ABI_OFFSET(kernel_req, probe);
HOST_ABI_OFFSET(kernel_req, result);
HOST_ABI_OFFSET(kernel_req, done);
HOST_ABI_OFFSET(kernel_req, name);
HOST_ABI_OFFSET(kernel_req, text);
HOST_ABI_CONST(KERNEL_REQ_TEXT_LEN);

/* include/trace/synth.h */
HOST_ABI_CONST(SYNTH_EVENTS_MAX);
HOST_ABI_CONST(SYNTH_FIELDS_MAX);
HOST_ABI_SIZE(synth_event);
HOST_ABI_OFFSET(synth_event, n_fields);
HOST_ABI_OFFSET(synth_event, size);
HOST_ABI_OFFSET(synth_event, kind);

/* include/trace/trace.h: saved cmdlines */
HOST_ABI_CONST(SAVED_CMDLINES);
HOST_ABI_SIZE(saved_cmdline);
HOST_ABI_SIZE(saved_cmdlines);
HOST_ABI_OFFSET(saved_cmdlines, entry);
HOST_ABI_CONST(COMM_RENAMES);
HOST_ABI_SIZE(comm_rename);
HOST_ABI_OFFSET(saved_cmdlines, renames);
HOST_ABI_OFFSET(saved_cmdlines, renames_next);

/* include/trace/trace_pid.h */
HOST_ABI_CONST(TRACE_PID_MAX);
HOST_ABI_SIZE(trace_pid_bits);
HOST_ABI_SIZE(trace_pid_control);
HOST_ABI_OFFSET(trace_pid_control, event_pids);
HOST_ABI_OFFSET(trace_pid_control, event_notrace_pids);
HOST_ABI_OFFSET(trace_pid_control, event_fork);
HOST_ABI_OFFSET(trace_pid_control, function_fork);
HOST_ABI_OFFSET(trace_pid_control, pids);
HOST_ABI_OFFSET(trace_pid_control, notrace_pids);
HOST_ABI_OFFSET(trace_pid_control, event_pids_ext);
HOST_ABI_OFFSET(trace_pid_control, event_notrace_pids_ext);
HOST_ABI_OFFSET(trace_pid_control, event_fork_ext);
HOST_ABI_OFFSET(trace_pid_control, function_fork_ext);

/* include/trace/ftrace.h, ftrace_frame.h */
HOST_ABI_CONST(MCOUNT_INSN_SIZE);
HOST_ABI_CONST(FTRACE_MAX_SITES);
HOST_ABI_CONST(FTRACE_PIDS_MAX);
HOST_ABI_CONST(FTRACE_MAP_GRAIN);
HOST_ABI_CONST(FTRACE_MAP_ENTRIES);
HOST_ABI_CONST(FTRACE_PROBES_MAX);
HOST_ABI_CONST(FTRACE_GRAPH_FUNCTION);
HOST_ABI_CONST(FTRACE_GRAPH_NOTRACE);
HOST_ABI_CONST(FTRACE_SITE_PROBES);
HOST_ABI_CONST(FTRACE_SITE_STACK);
HOST_ABI_CONST(FTRACE_SITE_PROFILE);
HOST_ABI_CONST(FTRACE_SITE_DIRECT);
HOST_ABI_SIZE(ftrace_profile);
HOST_ABI_SIZE(ftrace_profile_stat);
HOST_ABI_SIZE(ftrace_profiler);
HOST_ABI_OFFSET(ftrace_profile_stat, rec);
HOST_ABI_OFFSET(ftrace_profiler, stat);
HOST_ABI_CONST(STACK_TRACE_ENTRIES);
HOST_ABI_SIZE(stack_tracer);
HOST_ABI_OFFSET(stack_tracer, lock);
HOST_ABI_OFFSET(stack_tracer, seq);
HOST_ABI_OFFSET(stack_tracer, max_size);
HOST_ABI_OFFSET(stack_tracer, nr_entries);
HOST_ABI_OFFSET(stack_tracer, dump);
HOST_ABI_OFFSET(stack_tracer, index);
HOST_ABI_CONST(FTRACE_PROBE_TRACEON);
HOST_ABI_CONST(FTRACE_PROBE_TRACEOFF);
HOST_ABI_CONST(FTRACE_PROBE_TRACEON_COUNT);
HOST_ABI_CONST(FTRACE_PROBE_TRACEOFF_COUNT);
HOST_ABI_CONST(FTRACE_PROBE_STACKTRACE);
HOST_ABI_CONST(FTRACE_PROBE_STACKTRACE_COUNT);
HOST_ABI_CONST(FTRACE_PROBE_SNAPSHOT);
HOST_ABI_CONST(FTRACE_PROBE_SNAPSHOT_COUNT);
HOST_ABI_CONST(FTRACE_PROBE_DUMP);
HOST_ABI_CONST(FTRACE_PROBE_CPUDUMP);
HOST_ABI_CONST(FTRACE_DUMP_TEXT_SIZE);
HOST_ABI_SIZE(ftrace_dump_state);
HOST_ABI_OFFSET(ftrace_dump_state, running);
HOST_ABI_OFFSET(ftrace_dump_state, cpu);
HOST_ABI_OFFSET(ftrace_dump_state, asked);
HOST_ABI_OFFSET(ftrace_dump_state, len);
HOST_ABI_OFFSET(ftrace_dump_state, last);
HOST_ABI_OFFSET(ftrace_dump_state, ready);
HOST_ABI_OFFSET(ftrace_dump_state, text);
HOST_ABI_CONST(FTRACE_PROBE_ENABLE_EVENT);
HOST_ABI_CONST(FTRACE_PROBE_DISABLE_EVENT);
HOST_ABI_SIZE(ftrace_site_state);
HOST_ABI_OFFSET(ftrace_site_state, func_slots);
HOST_ABI_OFFSET(ftrace_site_state, graph_slots);
HOST_ABI_OFFSET(ftrace_site_state, flags);
HOST_ABI_OFFSET(ftrace_site_state, kprobe);
HOST_ABI_OFFSET(ftrace_site_state, graph);
HOST_ABI_SIZE(ftrace_site_entry);
HOST_ABI_OFFSET(ftrace_site_entry, index);
HOST_ABI_SIZE(ftrace_probe);
HOST_ABI_SIZE(ftrace_probes);
HOST_ABI_OFFSET(ftrace_probes, first);
HOST_ABI_OFFSET(ftrace_probes, counts);
HOST_ABI_OFFSET(ftrace_probes, probe);
HOST_ABI_SIZE(ftrace_slot_state);
HOST_ABI_OFFSET(ftrace_slot_state, nr_pids);
HOST_ABI_OFFSET(ftrace_slot_state, nr_notrace_pids);
HOST_ABI_OFFSET(ftrace_slot_state, pids);
HOST_ABI_OFFSET(ftrace_slot_state, notrace_pids);
HOST_ABI_SIZE(ftrace_control);
HOST_ABI_OFFSET(ftrace_control, max_graph_depth);
HOST_ABI_OFFSET(ftrace_control, graph_filtered);
HOST_ABI_OFFSET(ftrace_control, pid_filtered);
HOST_ABI_OFFSET(ftrace_control, stack_trace);
HOST_ABI_OFFSET(ftrace_control, graph_skip_irqs);
HOST_ABI_OFFSET(ftrace_control, slow_slots);
HOST_ABI_OFFSET(ftrace_control, no_repeats);
HOST_ABI_OFFSET(ftrace_control, slots);
HOST_ABI_OFFSET(ftrace_control, sleep_time_off);
HOST_ABI_OFFSET(ftrace_control, graph_time_off);
HOST_ABI_OFFSET(ftrace_control, func_ext);
HOST_ABI_OFFSET(ftrace_control, graph_ext);
HOST_ABI_OFFSET(ftrace_control, pid_filtered_ext);
HOST_ABI_OFFSET(ftrace_control, stack_trace_ext);
HOST_ABI_OFFSET(ftrace_control, no_repeats_ext);
HOST_ABI_OFFSET(ftrace_control, ext);
HOST_ABI_SIZE(ftrace_ext_slot);
HOST_ABI_OFFSET(ftrace_ext_slot, func_sites);
HOST_ABI_OFFSET(ftrace_ext_slot, graph_sites);
HOST_ABI_OFFSET(ftrace_ext_slot, pids);
HOST_ABI_OFFSET(ftrace_ext_slot, repeats);

/* include/trace/probe_stage.h */
HOST_ABI_CONST(PROBE_STAGE_MAX);
HOST_ABI_SIZE(probe_stage);
HOST_ABI_OFFSET(probe_stage, slots);
HOST_ABI_OFFSET(probe_stage, triggers);
HOST_ABI_OFFSET(probe_stage, irqflags);
HOST_ABI_OFFSET(probe_stage, data);
HOST_ABI_CONST(KG_MAX_POINTS);
HOST_ABI_CONST(KG_MAX_PROBES);
HOST_ABI_CONST(KG_MAX_ARGS);
HOST_ABI_CONST(KG_MAX_DEREF);
HOST_ABI_CONST(KG_MAX_INSTS);
HOST_ABI_CONST(KG_INST_HASH);
HOST_ABI_CONST(KG_LOAD_REG);
HOST_ABI_CONST(KG_LOAD_IP);
HOST_ABI_CONST(KG_LOAD_STACK);
HOST_ABI_CONST(KG_LOAD_IMM);
HOST_ABI_CONST(KG_LOAD_COMM);
HOST_ABI_CONST(KG_LOAD_DATA);
HOST_ABI_CONST(KG_LOAD_FIELD);
HOST_ABI_CONST(KG_LOAD_USTACK);
HOST_ABI_CONST(KG_LOAD_FOFFS);
HOST_ABI_CONST(KG_FIELD_SIGNED);
HOST_ABI_CONST(KG_FIELD_DYN_STRING);
HOST_ABI_CONST(KG_FIELD_STATIC_STRING);
HOST_ABI_CONST(KG_FIELD_PTR_STRING);
HOST_ABI_CONST(KG_ST_RAW);
HOST_ABI_CONST(KG_ST_MEM);
HOST_ABI_CONST(KG_ST_UMEM);
HOST_ABI_CONST(KG_ST_STRING);
HOST_ABI_CONST(KG_ST_USTRING);
HOST_ABI_CONST(KG_ST_SYMSTR);
HOST_ABI_SIZE(kg_arg);
HOST_ABI_SIZE(kg_probe);
HOST_ABI_OFFSET(kg_probe, slots);
HOST_ABI_OFFSET(kg_probe, triggers);
HOST_ABI_OFFSET(kg_probe, nhit);
HOST_ABI_OFFSET(kg_probe, first_inst);
HOST_ABI_SIZE(kg_point);
HOST_ABI_OFFSET(kg_point, insn);
HOST_ABI_OFFSET(kg_point, emulate);
HOST_ABI_OFFSET(kg_point, host);
HOST_ABI_CONST(PORT_KPROBE_HIT);
HOST_ABI_CONST(KPROBE_HOST_HIT);
HOST_ABI_CONST(KPROBE_HOST_NEXT);
HOST_ABI_CONST(KPROBE_HOST_MISSED);
HOST_ABI_CONST(KG_EMULATE_IFMODIFIERS);
HOST_ABI_CONST(KG_EMULATE_RET);
HOST_ABI_CONST(KG_EMULATE_CALL);
HOST_ABI_CONST(KG_EMULATE_JMP);
HOST_ABI_CONST(KG_EMULATE_JCC);
HOST_ABI_CONST(KG_EMULATE_LOOP);
HOST_ABI_CONST(KG_EMULATE_CALL_INDIRECT);
HOST_ABI_CONST(KG_EMULATE_JMP_INDIRECT);
HOST_ABI_SIZE(kg_inst);
HOST_ABI_SIZE(kprobe_guest);
HOST_ABI_OFFSET(kprobe_guest, order);
HOST_ABI_OFFSET(kprobe_guest, points);
HOST_ABI_OFFSET(kprobe_guest, probes);
HOST_ABI_OFFSET(kprobe_guest, args);
HOST_ABI_OFFSET(kprobe_guest, chains);
HOST_ABI_OFFSET(kprobe_guest, insts);

/* include/trace/trigger.h: the event triggers' table */
HOST_ABI_CONST(EVENT_TRIGGER_TYPES);
HOST_ABI_CONST(EVENT_TRIGGERS_MAX);
HOST_ABI_CONST(EVENT_TRIGGER_PREDS_MAX);
HOST_ABI_CONST(EVENT_TRIGGER_STRINGS);
HOST_ABI_CONST(EVENT_SNAPSHOT_REQS);
HOST_ABI_CONST(ETT_TRACEON);
HOST_ABI_CONST(ETT_TRACEOFF);
HOST_ABI_CONST(ETT_STACKTRACE);
HOST_ABI_CONST(ETT_SNAPSHOT);
HOST_ABI_CONST(ETT_ENABLE_EVENT);
HOST_ABI_CONST(ETT_DISABLE_EVENT);
HOST_ABI_CONST(ETT_HIST);
HOST_ABI_CONST(ETT_ENABLE_HIST);
HOST_ABI_CONST(ETT_DISABLE_HIST);
HOST_ABI_CONST(ETT_EVENT_EPROBE);
HOST_ABI_CONST(ETF_COUNTED);
HOST_ABI_CONST(ETF_POST);
HOST_ABI_CONST(ETF_COND);
HOST_ABI_CONST(ETF_PAUSED);
HOST_ABI_CONST(TPK_NEVER);
HOST_ABI_CONST(TPK_NUM);
HOST_ABI_CONST(TPK_CPU);
HOST_ABI_CONST(TPK_COMM);
HOST_ABI_CONST(TPK_STR);
HOST_ABI_CONST(TPK_DYN_STR);
HOST_ABI_CONST(TPK_PTR_STR);
HOST_ABI_CONST(TPK_PTR_USTR);
HOST_ABI_CONST(TPO_EQ);
HOST_ABI_CONST(TPO_NE);
HOST_ABI_CONST(TPO_LT);
HOST_ABI_CONST(TPO_LE);
HOST_ABI_CONST(TPO_GT);
HOST_ABI_CONST(TPO_GE);
HOST_ABI_CONST(TPO_BAND);
HOST_ABI_CONST(TPO_MATCH_FULL);
HOST_ABI_CONST(TPO_MATCH_FRONT);
HOST_ABI_CONST(TPO_MATCH_MIDDLE);
HOST_ABI_CONST(TPO_MATCH_END);
HOST_ABI_CONST(TPO_MATCH_GLOB);
HOST_ABI_SIZE(event_trigger);
HOST_ABI_SIZE(trigger_pred);
HOST_ABI_SIZE(event_snapshot_reqs);
HOST_ABI_SIZE(event_triggers);
HOST_ABI_OFFSET(event_triggers, first);
HOST_ABI_OFFSET(event_triggers, counts);
HOST_ABI_OFFSET(event_triggers, snapshot);
HOST_ABI_OFFSET(event_triggers, trigger);
HOST_ABI_OFFSET(event_triggers, pred);
HOST_ABI_OFFSET(event_triggers, strings);
HOST_ABI_OFFSET(event_triggers, dyn_soft_off);
HOST_ABI_CONST(ETF_SOFT_WORD);

/* include/trace/tracing_map.h: the histograms' maps */
HOST_ABI_CONST(HIST_MAPS_MAX);
HOST_ABI_CONST(HIST_ARENA_SIZE);
HOST_ABI_CONST(HIST_KEYS_MAX);
HOST_ABI_CONST(HIST_VALS_MAX);
HOST_ABI_CONST(HF_NUM);
HOST_ABI_CONST(HF_CPU);
HOST_ABI_CONST(HF_STR);
HOST_ABI_CONST(HF_DYN_STR);
HOST_ABI_CONST(HF_STACKTRACE);
HOST_ABI_CONST(HF_EXPR);
HOST_ABI_CONST(HIST_STACKTRACE_DEPTH);
HOST_ABI_CONST(HF_HITCOUNT);
HOST_ABI_CONST(HF_LOG2);
HOST_ABI_CONST(HF_BUCKETS);
HOST_ABI_CONST(HIST_VARS_MAX);
HOST_ABI_CONST(HIST_VAR_REFS_MAX);
HOST_ABI_CONST(HIST_EXPR_MAX);
HOST_ABI_CONST(HIST_ACTIONS_MAX);
HOST_ABI_CONST(HIST_PARAMS_MAX);
HOST_ABI_CONST(HE_FIELD);
HOST_ABI_CONST(HE_CPU);
HOST_ABI_CONST(HE_TS);
HOST_ABI_CONST(HE_TS_USECS);
HOST_ABI_CONST(HE_REF);
HOST_ABI_CONST(HE_CONST);
HOST_ABI_CONST(HE_PLUS);
HOST_ABI_CONST(HE_MINUS);
HOST_ABI_CONST(HE_MULT);
HOST_ABI_CONST(HE_DIV);
HOST_ABI_CONST(HE_NEG);
HOST_ABI_CONST(HE_STR);
HOST_ABI_CONST(HE_DYN_STR);
HOST_ABI_CONST(HE_LOG2);
HOST_ABI_CONST(HE_BUCKETS);
HOST_ABI_CONST(HP_REF);
HOST_ABI_CONST(HP_NUM);
HOST_ABI_CONST(HP_STR);
HOST_ABI_CONST(HP_DYN_STR);
HOST_ABI_CONST(HA_ONMATCH);
HOST_ABI_CONST(HA_ONMAX);
HOST_ABI_CONST(HA_ONCHANGE);
HOST_ABI_CONST(HA_TRACE);
HOST_ABI_CONST(HA_SAVE);
HOST_ABI_CONST(HA_SNAPSHOT);
HOST_ABI_SIZE(hist_action);
HOST_ABI_SIZE(hist_map);
HOST_ABI_SIZE(hist_cond_snapshot);
HOST_ABI_SIZE(hist_key_field);
HOST_ABI_SIZE(hist_val_field);
HOST_ABI_OFFSET(hist_map, next_elt);
HOST_ABI_OFFSET(hist_map, paused);
HOST_ABI_OFFSET(hist_map, hits);
HOST_ABI_OFFSET(hist_map, drops);
HOST_ABI_OFFSET(hist_map, map);
HOST_ABI_OFFSET(hist_map, keys);
HOST_ABI_OFFSET(hist_map, vals);
HOST_ABI_OFFSET(hist_map, sums_offset);
HOST_ABI_OFFSET(hist_map, vars);
HOST_ABI_OFFSET(hist_map, refs);
HOST_ABI_OFFSET(hist_map, expr);
HOST_ABI_OFFSET(hist_map, actions);

/* uprobes: the host's engine (probes/uprobes.py) fills the points and walks the mappings */
HOST_ABI_CONST(UPROBES_MAX);
HOST_ABI_SIZE(uprobe_point);
HOST_ABI_OFFSET(uprobe_points, p);
HOST_ABI_OFFSET(uprobe_point, flags);
HOST_ABI_OFFSET(uprobe_point, nhit);
HOST_ABI_OFFSET(uprobe_point, xol);
HOST_ABI_OFFSET(uprobe_point, entry_probe);
HOST_ABI_CONST(UPROBE_GUEST_CONSUMERS);
HOST_ABI_OFFSET(task_struct, mm);
HOST_ABI_OFFSET(mm_struct, mm_mt);
HOST_ABI_OFFSET(mm_struct, pgd);
HOST_ABI_OFFSET(vm_area_struct, vm_flags);
HOST_ABI_OFFSET(vm_area_struct, vm_ops);
HOST_ABI_OFFSET(vm_area_struct, vm_pgoff);
HOST_ABI_OFFSET(vm_area_struct, vm_file);
HOST_ABI_OFFSET(vm_area_struct, vm_list);
HOST_ABI_OFFSET(file, f_inode);
HOST_ABI_OFFSET(inode, i_ino);
/* user_stack's sym-userobj: a task's mappings and their files' paths (machine.py user_vmas) */
HOST_ABI_OFFSET(vm_area_struct, vm_start);
HOST_ABI_OFFSET(vm_area_struct, vm_end);
HOST_ABI_OFFSET(task_struct, pid);
HOST_ABI_OFFSET(file, f_path);
HOST_ABI_OFFSET(path, mnt);
HOST_ABI_OFFSET(path, dentry);
HOST_ABI_OFFSET(dentry, d_parent);
HOST_ABI_OFFSET(dentry, d_name);
HOST_ABI_OFFSET(qstr, len);
HOST_ABI_OFFSET(qstr, name);
HOST_ABI_OFFSET(mount, mnt_parent);
HOST_ABI_OFFSET(mount, mnt_mountpoint);
HOST_ABI_OFFSET(mount, mnt);
HOST_ABI_OFFSET(vfsmount, mnt_root);

/* include/bpf_jit.h: the JITed programs' kallsyms lines (kernel/bpf/core.c's bpf_jit_ksyms[]) */
HOST_ABI_CONST(BPF_JIT_KSYMS);
HOST_ABI_CONST(BPF_JIT_KSYM_LEN);
