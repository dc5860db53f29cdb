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
    # the function tracer's files (CONFIG_DYNAMIC_FTRACE, FUNCTION_TRACER, FUNCTION_GRAPH_TRACER)
    ("available_filter_functions",
     "\n"
     "  available_filter_functions - list of functions that can be filtered on\n"),
    ("set_ftrace_filter",
     "  set_ftrace_filter\t- echo function name in here to only trace these\n"
     "\t\t\t  functions\n"
     "\t     accepts: func_full_name or glob-matching-pattern\n"
     "\t     modules: Can select a group via module\n"
     "\t      Format: :mod:<module-name>\n"
     "\t     example: echo :mod:ext3 > set_ftrace_filter\n"
     "\t    triggers: a command to perform when function is hit\n"
     "\t      Format: <function>:<trigger>[:count]\n"
     "\t     trigger: traceon, traceoff\n"
     "\t\t      enable_event:<system>:<event>\n"
     "\t\t      disable_event:<system>:<event>\n"
     "\t\t      stacktrace\n"
     "\t\t      snapshot\n"
     "\t\t      dump\n"
     "\t\t      cpudump\n"
     "\t     example: echo do_fault:traceoff > set_ftrace_filter\n"
     "\t              echo do_trap:traceoff:3 > set_ftrace_filter\n"
     "\t     The first one will disable tracing every time do_fault is hit\n"
     "\t     The second will disable tracing at most 3 times when do_trap is hit\n"
     "\t       The first time do trap is hit and it disables tracing, the\n"
     "\t       counter will decrement to 2. If tracing is already disabled,\n"
     "\t       the counter will not decrement. It only decrements when the\n"
     "\t       trigger did work\n"
     "\t     To remove trigger without count:\n"
     "\t       echo '!<function>:<trigger> > set_ftrace_filter\n"
     "\t     To remove trigger with a count:\n"
     "\t       echo '!<function>:<trigger>:0 > set_ftrace_filter\n"),
    ("set_ftrace_notrace",
     "  set_ftrace_notrace\t- echo function name in here to never trace.\n"
     "\t    accepts: func_full_name, *func_end, func_begin*, *func_middle*\n"
     "\t    modules: Can select a group via module command :mod:\n"
     "\t    Does not accept triggers\n"),
    ("set_ftrace_pid",
     "  set_ftrace_pid\t- Write pid(s) to only function trace those pids\n"
     "\t\t    (function)\n"),
    ("set_ftrace_notrace_pid",
     "  set_ftrace_notrace_pid\t- Write pid(s) to not function trace those pids\n"
     "\t\t    (function)\n"),
    ("set_graph_function",
     "  set_graph_function\t- Trace the nested calls of a function (function_graph)\n"),
    ("set_graph_notrace",
     "  set_graph_notrace\t- Do not trace the nested calls of a function (function_graph)\n"),
    ("max_graph_depth",
     "  max_graph_depth\t- Trace a limited depth of nested calls (0 is unlimited)\n"),
    # CONFIG_TRACER_SNAPSHOT
    ("snapshot",
     "\n"
     "  snapshot\t\t- Like 'trace' but shows the content of the static\n"
     "\t\t\t  snapshot buffer. Read the contents for more\n"
     "\t\t\t  information\n"),
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
    ("events/<system>/<event>/filter", "      filter\t\t- If set, only events passing filter are traced\n"),    # event triggers, hist triggers (CONFIG_HIST_TRIGGERS), synthetic events
    ("events/<system>/<event>/trigger",
     "      trigger\t\t- If set, a command to perform when event is hit\n"
     "\t    Format: <trigger>[:count][if <filter>]\n"
     "\t   trigger: traceon, traceoff\n"
     "\t            enable_event:<system>:<event>\n"
     "\t            disable_event:<system>:<event>\n"
     "\t            enable_hist:<system>:<event>\n"
     "\t            disable_hist:<system>:<event>\n"
     "\t\t    stacktrace\n"
     "\t\t    snapshot\n"
     "\t\t    hist (see below)\n"
     "\t   example: echo traceoff > events/block/block_unplug/trigger\n"
     "\t            echo traceoff:3 > events/block/block_unplug/trigger\n"
     "\t            echo 'enable_event:kmem:kmalloc:3 if nr_rq > 1' > \\\n"
     "\t                  events/block/block_unplug/trigger\n"
     "\t   The first disables tracing every time block_unplug is hit.\n"
     "\t   The second disables tracing the first 3 times block_unplug is hit.\n"
     "\t   The third enables the kmalloc event the first 3 times block_unplug\n"
     "\t     is hit and has value of greater than 1 for the 'nr_rq' event field.\n"
     "\t   Like function triggers, the counter is only decremented if it\n"
     "\t    enabled or disabled tracing.\n"
     "\t   To remove a trigger without a count:\n"
     "\t     echo '!<trigger> > <system>/<event>/trigger\n"
     "\t   To remove a trigger with a count:\n"
     "\t     echo '!<trigger>:0 > <system>/<event>/trigger\n"
     "\t   Filters can be ignored when removing a trigger.\n"),
    ("events/<system>/<event>/hist",
     "      hist trigger\t- If set, event hits are aggregated into a hash table\n"
     "\t    Format: hist:keys=<field1[,field2,...]>\n"
     "\t            [:<var1>=<field|var_ref|numeric_literal>[,<var2>=...]]\n"
     "\t            [:values=<field1[,field2,...]>]\n"
     "\t            [:sort=<field1[,field2,...]>]\n"
     "\t            [:size=#entries]\n"
     "\t            [:pause][:continue][:clear]\n"
     "\t            [:name=histname1]\n"
     "\t            [:<handler>.<action>]\n"
     "\t            [if <filter>]\n"
     "\n"
     "\t    Note, special fields can be used as well:\n"
     "\t            common_timestamp - to record current timestamp\n"
     "\t            common_cpu - to record the CPU the event happened on\n"
     "\n"
     "\t    A hist trigger variable can be:\n"
     "\t        - a reference to a field e.g. x=current_timestamp,\n"
     "\t        - a reference to another variable e.g. y=$x,\n"
     "\t        - a numeric literal: e.g. ms_per_sec=1000,\n"
     "\t        - an arithmetic expression: e.g. time_secs=current_timestamp/1000\n"
     "\n"
     "\t    hist trigger arithmetic expressions support addition(+), subtraction(-),\n"
     "\t    multiplication(*) and division(/) operators. An operand can be either a\n"
     "\t    variable reference, field or numeric literal.\n"
     "\n"
     "\t    When a matching event is hit, an entry is added to a hash\n"
     "\t    table using the key(s) and value(s) named, and the value of a\n"
     "\t    sum called 'hitcount' is incremented.  Keys and values\n"
     "\t    correspond to fields in the event's format description.  Keys\n"
     "\t    can be any field, or the special string 'stacktrace'.\n"
     "\t    Compound keys consisting of up to two fields can be specified\n"
     "\t    by the 'keys' keyword.  Values must correspond to numeric\n"
     "\t    fields.  Sort keys consisting of up to two fields can be\n"
     "\t    specified using the 'sort' keyword.  The sort direction can\n"
     "\t    be modified by appending '.descending' or '.ascending' to a\n"
     "\t    sort field.  The 'size' parameter can be used to specify more\n"
     "\t    or fewer than the default 2048 entries for the hashtable size.\n"
     "\t    If a hist trigger is given a name using the 'name' parameter,\n"
     "\t    its histogram data will be shared with other triggers of the\n"
     "\t    same name, and trigger hits will update this common data.\n"
     "\n"
     "\t    Reading the 'hist' file for the event will dump the hash\n"
     "\t    table in its entirety to stdout.  If there are multiple hist\n"
     "\t    triggers attached to an event, there will be a table for each\n"
     "\t    trigger in the output.  The table displayed for a named\n"
     "\t    trigger will be the same as any other instance having the\n"
     "\t    same name.  The default format used to display a given field\n"
     "\t    can be modified by appending any of the following modifiers\n"
     "\t    to the field name, as applicable:\n"
     "\n"
     "\t            .hex        display a number as a hex value\n"
     "\t            .sym        display an address as a symbol\n"
     "\t            .sym-offset display an address as a symbol and offset\n"
     "\t            .execname   display a common_pid as a program name\n"
     "\t            .syscall    display a syscall id as a syscall name\n"
     "\t            .log2       display log2 value rather than raw number\n"
     "\t            .buckets=size  display values in groups of size rather than raw number\n"
     "\t            .usecs      display a common_timestamp in microseconds\n"
     "\t            .percent    display a number of percentage value\n"
     "\t            .graph      display a bar-graph of a value\n"
     "\n"
     "\t    The 'pause' parameter can be used to pause an existing hist\n"
     "\t    trigger or to start a hist trigger but not log any events\n"
     "\t    until told to do so.  'continue' can be used to start or\n"
     "\t    restart a paused hist trigger.\n"
     "\n"
     "\t    The 'clear' parameter will clear the contents of a running\n"
     "\t    hist trigger and leave its current paused/active state\n"
     "\t    unchanged.\n"
     "\n"
     "\t    The enable_hist and disable_hist triggers can be used to\n"
     "\t    have one event conditionally start and stop another event's\n"
     "\t    already-attached hist trigger.  The syntax is analogous to\n"
     "\t    the enable_event and disable_event triggers.\n"
     "\n"
     "\t    Hist trigger handlers and actions are executed whenever a\n"
     "\t    a histogram entry is added or updated.  They take the form:\n"
     "\n"
     "\t        <handler>.<action>\n"
     "\n"
     "\t    The available handlers are:\n"
     "\n"
     "\t        onmatch(matching.event)  - invoke on addition or update\n"
     "\t        onmax(var)               - invoke if var exceeds current max\n"
     "\t        onchange(var)            - invoke action if var changes\n"
     "\n"
     "\t    The available actions are:\n"
     "\n"
     "\t        trace(<synthetic_event>,param list)  - generate synthetic event\n"
     "\t        save(field,...)                      - save current event fields\n"
     "\t        snapshot()                           - snapshot the trace buffer\n"
     "\n"),
    ("synthetic_events",
     "  events/synthetic_events\t- Create/append/remove/show synthetic events\n"
     "\t  Write into this file to define/undefine new synthetic events.\n"
     "\t     example: echo 'myevent u64 lat; char name[]' >> synthetic_events\n"),
)


def readme_text(paths: Container[str]) -> str:
    """The README for a tree holding `paths` (tracefs paths; `events/<system>/<event>/...`
    stands for the files every event directory has)."""
    return "".join(text for path, text in _SECTIONS if path in paths)
