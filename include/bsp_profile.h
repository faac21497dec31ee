/* bsp_profile.h: the vecbsp extension that counts operations per superstep. */
#ifndef BSP_PROFILE_H
#define BSP_PROFILE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Set by bsp_begin when the environment variable BSP_PROFILE names an
 * output file; never changes inside an SPMD section. */
extern int bsp_profile_enabled;

void bsp_profile_add_ops(unsigned long long ops);

/* Adds ops to this process's operation count for the current superstep.
 * When profiling is off this is one well-predicted branch. */
static inline void bsp_profile_ops(unsigned long long ops)
{
    if (bsp_profile_enabled)
        bsp_profile_add_ops(ops);
}

#ifdef __cplusplus
}
#endif

#endif
