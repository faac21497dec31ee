/* bsp_group.h: the vecbsp extension that ends a superstep whose messages stay within groups of processes. */
#ifndef BSP_GROUP_H
#define BSP_GROUP_H

#ifdef __cplusplus
extern "C" {
#endif

/* Like bsp_sync, called by every process, with the same array everywhere:
 * group[k] is the first process of process k's group (k itself when it is
 * alone), the groups being runs of consecutive processes. Every put, get
 * and message of the superstep stays within its sender's group, and no
 * registration or tag size changes in it. The hybrid backend then
 * synchronises the threads of each rank apart, without MPI, when every
 * group lies within one rank, else it syncs all; the threads and mpi
 * backends always sync all (docs/runtime.md, "Group syncs"). */
void bsp_group_sync(const int *group);

#ifdef __cplusplus
}
#endif

#endif
