/* mcbsp_types.c: a program written for MulticoreBSP 2.0's types, compiled
 * with bspcc --mcbsp (BSP_MCBSP_TYPES): sizes are size_t, process counts
 * unsigned int. The calls that write through a pointer (bsp_qsize,
 * bsp_get_tag, bsp_set_tagsize) must fill all 8 bytes of a size_t, which
 * starts here as a pattern no 4-byte write can clear; BSPedupack 2.0's
 * bspsort read garbage there with the int types. */
#include <bsp.h>
#include <stdio.h>
#include <string.h>

#define GARBAGE ((size_t)0xAAAAAAAAAAAAAAAAull)

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("mcbsp: check failed: %s (pid %u)\n", what, bsp_pid());
        failures++;
    }
}

int main(void)
{
    bsp_begin(bsp_nprocs());
    bsp_pid_t p = bsp_nprocs(), s = bsp_pid();
    size_t tagsize = sizeof(size_t);
    bsp_set_tagsize(&tagsize);
    check(tagsize == 0, "bsp_set_tagsize returns the old size, 0");
    bsp_sync();
    /* Each process sends its pid to every process, tagged with pid * 1000,
     * a payload of s + 1 words. */
    size_t payload[8] = {0};
    for (bsp_pid_t k = 0; k < p; k++) {
        size_t tag = (size_t)s * 1000;
        for (size_t w = 0; w <= s; w++)
            payload[w] = s;
        bsp_send(k, &tag, payload, (s + 1) * sizeof(size_t));
    }
    bsp_sync();
    bsp_nprocs_t count = (bsp_nprocs_t)GARBAGE;
    size_t bytes = GARBAGE;
    bsp_qsize(&count, &bytes);
    check(count == p, "bsp_qsize counts one message from every process");
    check(bytes == (size_t)p * (p + 1) / 2 * sizeof(size_t), "bsp_qsize adds up their payloads in a size_t");
    size_t seen = 0;
    for (bsp_nprocs_t m = 0; m < count; m++) {
        size_t status = GARBAGE, tag = GARBAGE;
        bsp_get_tag(&status, &tag);
        check(tag % 1000 == 0 && tag / 1000 < p, "bsp_get_tag's tag");
        check(status == (tag / 1000 + 1) * sizeof(size_t), "bsp_get_tag's status in a size_t");
        size_t got[8] = {0};
        bsp_move(got, status);
        check(got[0] == tag / 1000, "bsp_move's payload");
        seen += got[0];
    }
    check(seen == (size_t)p * (p - 1) / 2, "every pid once");
    size_t status = 0, tag = 0;
    bsp_get_tag(&status, &tag);
    check(status == (size_t)-1, "bsp_get_tag on an empty queue: (size_t)-1");
    /* A put with size_t offsets. */
    size_t cell[2] = {0, 0};
    bsp_push_reg(cell, sizeof cell);
    bsp_sync();
    size_t mine = 7 + s;
    bsp_put((s + 1) % p, &mine, cell, sizeof(size_t), sizeof(size_t));
    bsp_sync();
    check(cell[1] == 7 + (s + p - 1) % p, "bsp_put at a size_t offset");
    bsp_pop_reg(cell);
    bsp_sync();
    if (s == 0 && !failures)
        printf("mcbsp: ok\n");
    bsp_end();
    return 0;
}
