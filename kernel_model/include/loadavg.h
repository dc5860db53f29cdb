/* The load average (include/linux/sched/loadavg.h): avenrun[] in fixed point, FSHIFT bits of
 * fraction, updated every LOAD_FREQ (kernel/sched/loadavg.c). */
#ifndef _LOADAVG_H
#define _LOADAVG_H

#define FSHIFT		11		/* nr of bits of precision */
#define FIXED_1		(1 << FSHIFT)	/* 1.0 as fixed-point */
#define LOAD_FREQ	(5 * HZ + 1)	/* 5 sec intervals */
#define EXP_1		1884		/* 1/exp(5sec/1min) as fixed-point */
#define EXP_5		2014		/* 1/exp(5sec/5min) */
#define EXP_15		2037		/* 1/exp(5sec/15min) */
#define LOAD_INT(x)	((x) >> FSHIFT)
#define LOAD_FRAC(x)	LOAD_INT(((x) & (FIXED_1 - 1)) * 100)
#define SI_LOAD_SHIFT	16

extern unsigned long avenrun[3];
void calc_global_load(void);
void get_avenrun(unsigned long *loads, unsigned long offset, int shift);

#endif
