/*
 * Network namespaces (net/core/net_namespace.c): the initial one, init_net, every socket's
 * (sk_alloc).  Its number comes from proc_alloc_inum() at boot, before the mount namespace's,
 * as the real 6.1 numbers them: net:[4026531840], mnt:[4026531841].
 */
#include "../../include/net.h"
#include "../../include/nsproxy.h"

struct net init_net = {
	.ns = { .ops = &netns_operations, .count = 1 },
};

void __init net_ns_init(void)
{
	if (ns_alloc_inum(&init_net.ns))	/* setup_net(): net_ns_net_init() */
		panic("Could not setup the initial network namespace");
}
