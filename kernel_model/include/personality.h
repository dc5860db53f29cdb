#ifndef _PERSONALITY_H
#define _PERSONALITY_H
/* include/uapi/linux/personality.h and include/linux/personality.h: a task's execution domain
 * (the low byte) and its bug-emulation flags (current->personality; personality(2)) */

enum {
	UNAME26 =		0x0020000,
	ADDR_NO_RANDOMIZE =	0x0040000,	/* (the model never randomizes its layouts) */
	FDPIC_FUNCPTRS =	0x0080000,
	MMAP_PAGE_ZERO =	0x0100000,
	ADDR_COMPAT_LAYOUT =	0x0200000,
	READ_IMPLIES_EXEC =	0x0400000,
	ADDR_LIMIT_32BIT =	0x0800000,
	SHORT_INODE =		0x1000000,
	WHOLE_SECONDS =		0x2000000,
	STICKY_TIMEOUTS =	0x4000000,
	ADDR_LIMIT_3GB =	0x8000000,
};

/* cleared by a set-id exec (bprm->per_clear; the model has no set-id programs) */
#define PER_CLEAR_ON_SETID (READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT | MMAP_PAGE_ZERO)

enum {
	PER_LINUX =	0x0000,
	PER_LINUX32 =	0x0008,
	PER_MASK =	0x00ff,
};

#define personality(pers)	((pers) & PER_MASK)
#define set_personality(pers)	(current->personality = (pers))

void set_personality_64bit(void);

#endif
