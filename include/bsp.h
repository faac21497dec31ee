/* bsp.h: the standard BSPlib interface (Hill et al. 1998) of the vecbsp runtime. */
#ifndef BSP_H
#define BSP_H

#include <stdarg.h>
#include <stddef.h> /* as MulticoreBSP's bsp.h: programs use size_t and */
#include <stdint.h> /* the fixed-width types without including them */

#ifdef __cplusplus
extern "C" {
#endif

#ifdef BSP_MCBSP_TYPES
/* MulticoreBSP 2.0's types (bspcc --mcbsp), for programs written for them
 * (BSPedupack 2.0): every call whose arguments have them goes to a twin in
 * the runtime (src/bsp/mcbsp.c) that converts them, a size above INT_MAX
 * being an error. */
typedef unsigned int bsp_pid_t;
typedef unsigned int bsp_nprocs_t;
typedef size_t bsp_size_t;
#define bsp_begin bsp_mcbsp_begin
#define bsp_nprocs bsp_mcbsp_nprocs
#define bsp_pid bsp_mcbsp_pid
#define bsp_push_reg bsp_mcbsp_push_reg
#define bsp_put bsp_mcbsp_put
#define bsp_get bsp_mcbsp_get
#define bsp_hpput bsp_mcbsp_hpput
#define bsp_hpget bsp_mcbsp_hpget
#define bsp_set_tagsize bsp_mcbsp_set_tagsize
#define bsp_send bsp_mcbsp_send
#define bsp_qsize bsp_mcbsp_qsize
#define bsp_get_tag bsp_mcbsp_get_tag
#define bsp_move bsp_mcbsp_move
#define bsp_hpmove bsp_mcbsp_hpmove
#else
/* Signed types, as in BSPonMPI and MulticoreBSP's BSPlib 1.4 mode. */
typedef int bsp_pid_t;     /* a process number, 0 .. bsp_nprocs() - 1 */
typedef int bsp_nprocs_t;  /* a number of processes */
typedef int bsp_size_t;    /* a size or offset in bytes */
#endif

/* SPMD control. */
void bsp_init(void (*spmd)(void), int argc, char **argv);
void bsp_begin(bsp_nprocs_t maxprocs);
void bsp_end(void);
bsp_nprocs_t bsp_nprocs(void);
bsp_pid_t bsp_pid(void);
double bsp_time(void);
void bsp_sync(void);

/* Halting: prints the message on stderr and ends every process with a
 * non-zero exit status. */
void bsp_abort(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;
void bsp_vabort(const char *format, va_list args)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* Direct remote memory access: registrations take effect at the next
 * bsp_sync and are matched across processes by registration order. */
void bsp_push_reg(const void *ident, bsp_size_t size);
void bsp_pop_reg(const void *ident);
void bsp_put(bsp_pid_t pid, const void *src, void *dst, bsp_size_t offset,
             bsp_size_t nbytes);
void bsp_get(bsp_pid_t pid, const void *src, bsp_size_t offset, void *dst,
             bsp_size_t nbytes);
void bsp_hpput(bsp_pid_t pid, const void *src, void *dst, bsp_size_t offset,
               bsp_size_t nbytes);
void bsp_hpget(bsp_pid_t pid, const void *src, bsp_size_t offset, void *dst,
               bsp_size_t nbytes);

/* Bulk synchronous message passing: messages are delivered at the next
 * bsp_sync. */
void bsp_set_tagsize(bsp_size_t *tag_nbytes);
void bsp_send(bsp_pid_t pid, const void *tag, const void *payload,
              bsp_size_t payload_nbytes);
void bsp_qsize(bsp_nprocs_t *nmessages, bsp_size_t *accum_nbytes);
void bsp_get_tag(bsp_size_t *status, void *tag);
void bsp_move(void *payload, bsp_size_t reception_nbytes);
bsp_size_t bsp_hpmove(void **tag_ptr, void **payload_ptr);

#ifdef __cplusplus
}
#endif

#endif
