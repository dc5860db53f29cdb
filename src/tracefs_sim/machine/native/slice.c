/*
 * Ends an emulation slice from inside Unicorn, two ways (tracefs_sim.machine.slicer).
 *
 * By time (live machines): a timer thread calls uc_emu_stop on the CPU that is
 * in emu_start once the thread running it has had the slice's CPU time (not
 * wall time: a run-loop thread the host scheduler set aside, or one waiting
 * for the GIL in a hook, has run no guest code meanwhile).  The stop is exact only while
 * Unicorn checks for it at block starts alone, which the slicer arranges (it
 * turns off the checks Unicorn also makes after every memory access); the
 * guest then pays nothing per block.
 *
 * By code executed (seeded machines, or while a hook needs those checks): a
 * block hook subtracts each block's size from the slice's budget and, once it
 * is spent, calls uc_emu_stop before the next block runs, which stops exactly
 * at that block's start, at the cost of one native call per block.  Unicorn
 * reports a block's size in bytes, not instructions, so the budget and the
 * count of code executed are in bytes.  (Unicorn's own instruction count,
 * emu_start count=, steps a per-instruction hook and halves emulation speed.)
 *
 * No Unicorn header or library is needed: the one entry point used, uc_emu_stop,
 * is stable API and is passed in by the caller (the Python binding loads
 * libunicorn privately, so its symbols are not there to link against).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

typedef struct uc_struct uc_engine;
typedef int (*uc_emu_stop_fn)(uc_engine *uc);

/* ---- by code executed ---- */

struct slice {
	int64_t left;      /* bytes the slice may still start; set before each run */
	uint64_t executed; /* bytes of the blocks entered since the last reset */
	uc_emu_stop_fn emu_stop;
};

/* UC_HOOK_BLOCK callback: void (*)(uc_engine *, uint64_t address, uint32_t size, void *user_data) */
void slice_block_hook(uc_engine *uc, uint64_t address, uint32_t size, void *user_data)
{
	struct slice *s = user_data;

	(void)address;
	if (s->left <= 0) {
		/* the block is not executed: the next run starts with it */
		s->emu_stop(uc);
		return;
	}
	s->left -= size;
	s->executed += size;
}

/* ---- by time ---- */

/*
 * UC_HOOK_INTR callback, after the machine's: clears the engine's
 * skip_sync_pc_on_exit, whose byte offset is user_data.  uc_reg_write of RIP
 * sets that flag so that the next exit keeps the written RIP; from an
 * interrupt hook (the int3 redirect, the breakpoint handler) that exit is taken
 * between blocks without looking at it, and the flag stays set until emu_start
 * returns.  A stop at a block start would then not set RIP to the block's
 * address, and the CPU would resume at whatever RIP was last stored.
 */
void slice_intr_hook(uc_engine *uc, uint32_t intno, void *user_data)
{
	(void)intno;
	*(volatile uint8_t *)((char *)uc + (uintptr_t)user_data) = 0;
}

/* The timer's wake-ups are late by the thread's timer slack (50 us by default). */
#define TIMER_SLACK_NS 10000

struct slice_timer {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	uc_emu_stop_fn emu_stop;
	uc_engine *running; /* the CPU between slice_timer_begin and _end, else NULL */
	clockid_t runner;   /* CPU-time clock of the thread that runs it */
	uint64_t budget;    /* ns of that CPU time a slice gets */
	uint64_t end_cpu;   /* on that clock: when to stop it */
	uint64_t deadline;  /* CLOCK_MONOTONIC ns: when to look next */
	uint64_t stops;     /* stops issued (tests read it) */
	int idle;           /* the thread waits with no deadline: begin must wake it */
	int quit;
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *timer_main(void *arg)
{
	struct slice_timer *t = arg;

	prctl(PR_SET_TIMERSLACK, TIMER_SLACK_NS);
	pthread_mutex_lock(&t->lock);
	while (!t->quit) {
		uint64_t now;
		struct timespec until;

		if (!t->running) {
			t->idle = 1;
			pthread_cond_wait(&t->wake, &t->lock);
			t->idle = 0;
			continue;
		}
		now = clock_ns(CLOCK_MONOTONIC);
		if (now >= t->deadline) {
			uint64_t used = clock_ns(t->runner);

			if (used >= t->end_cpu) {
				/* under the lock: slice_timer_end has not returned, so the
				 * stop cannot reach a later slice */
				t->emu_stop(t->running);
				t->stops++;
				/* A stop issued before emu_start has begun is lost (emu_start
				 * clears the request): if the slice runs a budget more, stop
				 * it again. */
				t->end_cpu = used + t->budget;
				t->deadline = now + t->budget;
			} else {
				/* the CPU time still due takes at least as long on the wall clock */
				t->deadline = now + (t->end_cpu - used);
			}
		}
		until.tv_sec = t->deadline / 1000000000u;
		until.tv_nsec = t->deadline % 1000000000u;
		pthread_cond_timedwait(&t->wake, &t->lock, &until);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

struct slice_timer *slice_timer_new(uc_emu_stop_fn emu_stop)
{
	struct slice_timer *t = calloc(1, sizeof(*t));
	pthread_condattr_t attr;
	sigset_t all, old;
	int err;

	if (!t)
		return NULL;
	t->emu_stop = emu_stop;
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&t->wake, &attr);
	pthread_condattr_destroy(&attr);
	/* signals (Ctrl-C, SIGTERM) stay with the interpreter's threads */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&t->thread, NULL, timer_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&t->wake);
		pthread_mutex_destroy(&t->lock);
		free(t);
		errno = err;
		return NULL;
	}
	return t;
}

/* Call right before emu_start on uc, on the thread that calls it: stop it once
 * this thread has had budget_ns more CPU time. */
void slice_timer_begin(struct slice_timer *t, uc_engine *uc, uint64_t budget_ns)
{
	clockid_t self;
	uint64_t cpu_now;

	pthread_getcpuclockid(pthread_self(), &self);
	cpu_now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_lock(&t->lock);
	t->running = uc;
	t->runner = self;
	t->budget = budget_ns;
	t->end_cpu = cpu_now + budget_ns;
	/* no earlier than any deadline the thread may be waiting for: no need to wake it */
	t->deadline = clock_ns(CLOCK_MONOTONIC) + budget_ns;
	if (t->idle)
		pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
}

/* From the running CPU's hooks (native/pmu.h): stop it after budget_ns more CPU time at most. */
void slice_timer_shorten(struct slice_timer *t, uint64_t budget_ns)
{
	uint64_t cpu_now = clock_ns(CLOCK_THREAD_CPUTIME_ID), now;

	pthread_mutex_lock(&t->lock);
	if (t->running && cpu_now + budget_ns < t->end_cpu) {
		now = clock_ns(CLOCK_MONOTONIC);
		t->end_cpu = cpu_now + budget_ns;
		if (now + budget_ns < t->deadline) {
			t->deadline = now + budget_ns;
			pthread_cond_signal(&t->wake);
		}
	}
	pthread_mutex_unlock(&t->lock);
}

/* Call once emu_start has returned: no stop reaches uc after this. */
void slice_timer_end(struct slice_timer *t)
{
	pthread_mutex_lock(&t->lock);
	t->running = NULL;
	pthread_mutex_unlock(&t->lock);
}

uint64_t slice_timer_stops(struct slice_timer *t)
{
	uint64_t n;

	pthread_mutex_lock(&t->lock);
	n = t->stops;
	pthread_mutex_unlock(&t->lock);
	return n;
}

void slice_timer_free(struct slice_timer *t)
{
	pthread_mutex_lock(&t->lock);
	t->quit = 1;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t);
}
