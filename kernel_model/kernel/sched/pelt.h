/* kernel/sched/pelt.h: the utilization average's update (pelt.c) */
int __update_load_avg_cfs_rq(u64 now, struct cfs_rq *cfs_rq);
