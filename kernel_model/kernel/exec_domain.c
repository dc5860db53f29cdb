/* kernel/exec_domain.c: personality(2), the task's execution domain and bug-emulation flags
 * (include/personality.h): what uname reports (PER_LINUX32, UNAME26), whether PROT_READ
 * implies PROT_EXEC (READ_IMPLIES_EXEC).  A fork inherits it, an exec keeps it (less the
 * flags set_personality_64bit() clears). */
#include "../include/syscalls.h"
#include "../include/personality.h"

SYSCALL_DEFINE1(personality, unsigned int, personality)
{
	unsigned int old = current->personality;

	if (personality != 0xffffffff)	/* (-1: a query) */
		set_personality(personality);
	return old;
}
