"""The README file: Linux's mini-HOWTO (readme_msg in trace.c), composed of the sections for
files that exist here.

Linux guards sections with config options; here each section is guarded by the tracefs path
it documents (`events/<system>/` for every system directory), so the README never describes a
file the mount does not have. The text is Linux 6.1's, x86-64 build.
"""

from collections.abc import Container

# (path that must exist, text) in Linux's order.
_SECTIONS: tuple[tuple[str, str], ...] = (
    ("tracing_on",
     "tracing mini-HOWTO:\n\n"
     "# echo 0 > tracing_on : quick way to disable tracing\n"
     "# echo 1 > tracing_on : quick way to re-enable tracing\n\n"
     " Important files:\n"),
    ("trace",
     "  trace\t\t\t- The static contents of the buffer\n"
     "\t\t\t  To clear the buffer write into this file: echo > trace\n"),
    ("trace_pipe", "  trace_pipe\t\t- A consuming read to see the contents of the buffer\n"),
    ("current_tracer", "  current_tracer\t- function and latency tracers\n"),
    ("available_tracers", "  available_tracers\t- list of configured tracers for current_tracer\n"),
    ("error_log", "  error_log\t- error log for failed commands (that support it)\n"),
    ("buffer_size_kb", "  buffer_size_kb\t- view and modify size of per cpu buffer\n"),
    ("buffer_total_size_kb", "  buffer_total_size_kb  - view total size of all cpu buffers\n\n"),
    ("trace_clock",
     "  trace_clock\t\t- change the clock used to order events\n"
     "       local:   Per cpu clock but may not be synced across CPUs\n"
     "      global:   Synced across CPUs but slows tracing down.\n"
     "     counter:   Not a clock, but just an increment\n"
     "      uptime:   Jiffy counter from time of boot\n"
     "        perf:   Same clock that perf events use\n"
     "     x86-tsc:   TSC cycle counter\n"),
    ("timestamp_mode",
     "\n  timestamp_mode\t- view the mode used to timestamp events\n"
     "       delta:   Delta difference against a buffer-wide timestamp\n"
     "    absolute:   Absolute (standalone) timestamp\n"),
    ("trace_marker", "\n  trace_marker\t\t- Writes into this file writes into the kernel buffer\n"),
    ("trace_marker_raw",
     "\n  trace_marker_raw\t\t- Writes into this file writes binary data into the kernel buffer\n"),
    ("tracing_cpumask", "  tracing_cpumask\t- Limit which CPUs to trace\n"),
    ("instances",
     "  instances\t\t- Make sub-buffers with: mkdir instances/foo\n"
     "\t\t\t  Remove sub-buffer with rmdir\n"),
    ("trace_options",
     "  trace_options\t\t- Set format or modify how tracing happens\n"
     "\t\t\t  Disable an option by prefixing 'no' to the\n"
     "\t\t\t  option name\n"),
    ("saved_cmdlines_size",
     "  saved_cmdlines_size\t- echo command number in here to store comm-pid list\n"),
    # the stack tracer (CONFIG_STACK_TRACER)
    ("stack_trace", "  stack_trace\t\t- Shows the max stack trace when active\n"),
    ("stack_max_size",
     "  stack_max_size\t- Shows current max stack size that was traced\n"
     "\t\t\t  Write into this file to reset the max size (trigger a\n"
     "\t\t\t  new trace)\n"),
    ("stack_trace_filter",
     "  stack_trace_filter\t- Like set_ftrace_filter but limits what stack_trace\n"
     "\t\t\t  traces\n"),
    # the dynamic events (CONFIG_DYNAMIC_EVENTS, KPROBE_EVENTS, UPROBE_EVENTS; the synthetic
    # events' lines are CONFIG_HIST_TRIGGERS')
    ("dynamic_events",
     "  dynamic_events\t\t- Create/append/remove/show the generic dynamic events\n"
     "\t\t\t  Write into this file to define/undefine new trace events.\n"),
    ("kprobe_events",
     "  kprobe_events\t\t- Create/append/remove/show the kernel dynamic events\n"
     "\t\t\t  Write into this file to define/undefine new trace events.\n"),
    ("uprobe_events",
     "  uprobe_events\t\t- Create/append/remove/show the userspace dynamic events\n"
     "\t\t\t  Write into this file to define/undefine new trace events.\n"),
    ("kprobe_events",
     "\t  accepts: event-definitions (one definition per line)\n"
     "\t   Format: p[:[<group>/][<event>]] <place> [<args>]\n"
     "\t           r[maxactive][:[<group>/][<event>]] <place> [<args>]\n"),
    ("synthetic_events", "\t           s:[synthetic/]<event> <field> [<field>]\n"),
    ("kprobe_events",
     "\t           e[:[<group>/][<event>]] <attached-group>.<attached-event> [<args>] [if <filter>]\n"
     "\t           -:[<group>/][<event>]\n"
     "\t    place: [<module>:]<symbol>[+<offset>]|<memaddr>\n"
     "place (kretprobe): [<module>:]<symbol>[+<offset>]%return|<memaddr>\n"),
    ("uprobe_events", "   place (uprobe): <path>:<offset>[%return][(ref_ctr_offset)]\n"),
    ("kprobe_events",
     "\t     args: <name>=fetcharg[:type]\n"
     "\t fetcharg: (%<register>|$<efield>), @<address>, @<symbol>[+|-<offset>],\n"
     "\t           $stack<index>, $stack, $retval, $comm, $arg<N>,\n"
     "\t           +|-[u]<offset>(<fetcharg>), \\imm-value, \\\"imm-string\"\n"
     "\t     type: s8/16/32/64, u8/16/32/64, x8/16/32/64, string, symbol,\n"
     "\t           b<bit-width>@<bit-offset>/<container-size>, ustring,\n"
     "\t           symstr, <type>\\[<array-size>\\]\n"),
    ("synthetic_events",
     "\t    field: <stype> <name>;\n"
     "\t    stype: u8/u16/u32/u64, s8/s16/s32/s64, pid_t,\n"
     "\t           [unsigned] char/int/long\n"),
    ("kprobe_events",
     "\t    efield: For event probes ('e' types), the field is on of the fields\n"
     "\t            of the <attached-group>/<attached-event>.\n"),
    ("events", "  events/\t\t- Directory containing all trace event subsystems:\n"),
    ("events/enable", "      enable\t\t- Write 0/1 to enable/disable tracing of all events\n"),
    ("events/<system>", "  events/<system>/\t- Directory containing all trace events for <system>:\n"),
    ("events/<system>/enable",
     "      enable\t\t- Write 0/1 to enable/disable tracing of all <system>\n"
     "\t\t\t  events\n"),
    ("events/<system>/filter", "      filter\t\t- If set, only events passing filter are traced\n"),
    ("events/<system>/<event>",
     "  events/<system>/<event>/\t- Directory containing control files for\n"
     "\t\t\t  <event>:\n"),
    ("events/<system>/<event>/enable", "      enable\t\t- Write 0/1 to enable/disable tracing of <event>\n"),
    ("events/<system>/<event>/filter", "      filter\t\t- If set, only events passing filter are traced\n"),
)


def readme_text(paths: Container[str]) -> str:
    """The README for a tree holding `paths` (tracefs paths; `events/<system>/<event>/...`
    stands for the files every event directory has)."""
    return "".join(text for path, text in _SECTIONS if path in paths)
