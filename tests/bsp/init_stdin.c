/* init_stdin.c: the start of BSPedupack's interactive programs. main calls
 * bsp_init, then reads the number of processes from stdin (which only
 * process 0 has), then runs the SPMD function, whose bsp_begin(P) the other
 * processes reach first, with no P of their own. Each process puts its pid
 * into process 0's array; process 0 checks the sum 0 + 1 + ... + P-1. */
#include <bsp.h>
#include <stdio.h>
#include <stdlib.h>

static int P; /* read by process 0 only */

static void spmd(void)
{
    bsp_begin(P);
    int p = bsp_nprocs(), s = bsp_pid();
    int64_t *pids = calloc((size_t)p, sizeof *pids); /* int64_t: bsp.h brings <stdint.h> */
    bsp_push_reg(pids, (bsp_size_t)(p * sizeof *pids));
    bsp_sync();
    int64_t mine = s;
    bsp_put(0, &mine, pids, (bsp_size_t)(s * sizeof mine), sizeof mine);
    bsp_sync();
    if (s == 0) {
        int64_t sum = 0;
        for (int i = 0; i < p; i++)
            sum += pids[i];
        if (sum == (int64_t)p * (p - 1) / 2)
            printf("init: ok, %d processes\n", p);
        else
            printf("init: check failed: sum %lld\n", (long long)sum);
    }
    bsp_pop_reg(pids);
    bsp_sync();
    free(pids); /* before bsp_end, which the other processes do not leave */
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    printf("How many processors do you want to use?\n");
    fflush(stdout);
    if (scanf("%d", &P) != 1 || P < 1 || P > bsp_nprocs()) {
        printf("init: check failed: cannot use that many processors\n");
        return 1;
    }
    spmd();
    return 0;
}
