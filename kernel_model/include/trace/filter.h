/* Event filters the kernel parses itself (kernel/trace_events_filter.c): perf's SET_FILTER. */
#ifndef _TRACE_FILTER_H
#define _TRACE_FILTER_H
#include "trace.h"

#define FILTER_MAX_NODES 64	/* predicates and operators of one filter */
struct event_filter;
struct event_filter *create_event_filter(const struct trace_event_meta *meta, const char *text);
void free_event_filter(struct event_filter *filter);
bool filter_match_preds(const struct event_filter *filter, const void *rec);
#endif
