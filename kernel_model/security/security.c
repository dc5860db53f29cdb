/* The LSM hooks (security/security.c): only the capability module is built, so each hook is
 * its commoncap function. */
#include "../include/cred.h"

noinline int security_capable(const struct cred *cred, struct user_namespace *ns, int cap, unsigned int opts)
{
	return cap_capable(cred, ns, cap, opts);	/* call_int_hook(capable, 0, ...) */
}
