/* mcbsp.c: the calls of bsp.h with MulticoreBSP 2.0's types (bspcc --mcbsp:
 * unsigned int processes, size_t sizes), each converting to the runtime's
 * int types and back. A size or offset above INT_MAX is an error, as the
 * runtime's own calls take no more; "none" (-1: no message) is SIZE_MAX. */
#include <limits.h>
#include <stdint.h>

#include "bsp_internal.h"

static int size_arg(const char *call, size_t n)
{
    if (n > INT_MAX)
        bsp_fail(bsp_self, "%s: %zu bytes, more than the %d this runtime takes", call, n, INT_MAX);
    return (int)n;
}

static int pid_arg(const char *call, unsigned int pid)
{
    if (pid > INT_MAX)
        bsp_fail(bsp_self, "%s: pid %u out of range", call, pid);
    return (int)pid;
}

static size_t size_result(int n) { return n < 0 ? SIZE_MAX : (size_t)n; }

void bsp_mcbsp_begin(unsigned int maxprocs) { bsp_begin(pid_arg("bsp_begin", maxprocs)); }
unsigned int bsp_mcbsp_nprocs(void) { return (unsigned int)bsp_nprocs(); }
unsigned int bsp_mcbsp_pid(void) { return (unsigned int)bsp_pid(); }

void bsp_mcbsp_push_reg(const void *ident, size_t size)
{
    bsp_push_reg(ident, size_arg("bsp_push_reg", size));
}

void bsp_mcbsp_put(unsigned int pid, const void *src, void *dst, size_t offset, size_t nbytes)
{
    bsp_put(pid_arg("bsp_put", pid), src, dst, size_arg("bsp_put", offset), size_arg("bsp_put", nbytes));
}

void bsp_mcbsp_get(unsigned int pid, const void *src, size_t offset, void *dst, size_t nbytes)
{
    bsp_get(pid_arg("bsp_get", pid), src, size_arg("bsp_get", offset), dst, size_arg("bsp_get", nbytes));
}

void bsp_mcbsp_hpput(unsigned int pid, const void *src, void *dst, size_t offset, size_t nbytes)
{
    bsp_hpput(pid_arg("bsp_hpput", pid), src, dst, size_arg("bsp_hpput", offset), size_arg("bsp_hpput", nbytes));
}

void bsp_mcbsp_hpget(unsigned int pid, const void *src, size_t offset, void *dst, size_t nbytes)
{
    bsp_hpget(pid_arg("bsp_hpget", pid), src, size_arg("bsp_hpget", offset), dst, size_arg("bsp_hpget", nbytes));
}

void bsp_mcbsp_set_tagsize(size_t *tag_nbytes)
{
    if (!tag_nbytes)
        bsp_set_tagsize(NULL); /* its error */
    int size = size_arg("bsp_set_tagsize", *tag_nbytes);
    bsp_set_tagsize(&size);
    *tag_nbytes = (size_t)size;
}

void bsp_mcbsp_send(unsigned int pid, const void *tag, const void *payload, size_t nbytes)
{
    bsp_send(pid_arg("bsp_send", pid), tag, payload, size_arg("bsp_send", nbytes));
}

void bsp_mcbsp_qsize(unsigned int *nmessages, size_t *accum_nbytes)
{
    if (!nmessages)
        bsp_qsize(NULL, NULL); /* its error */
    int n, bytes;
    bsp_qsize(&n, &bytes);
    *nmessages = (unsigned int)n;
    if (accum_nbytes)
        *accum_nbytes = (size_t)bytes;
}

void bsp_mcbsp_get_tag(size_t *status, void *tag)
{
    if (!status)
        bsp_get_tag(NULL, tag); /* its error */
    int s;
    bsp_get_tag(&s, tag);
    *status = size_result(s);
}

void bsp_mcbsp_move(void *payload, size_t reception_nbytes)
{
    bsp_move(payload, size_arg("bsp_move", reception_nbytes));
}

size_t bsp_mcbsp_hpmove(void **tag_ptr, void **payload_ptr)
{
    return size_result(bsp_hpmove(tag_ptr, payload_ptr));
}
