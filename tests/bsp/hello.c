/* hello.c: a BSPlib program in the classic style, bsp_begin first in main, built with bspcc. */
#include <bsp.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    bsp_begin(bsp_nprocs());
    int p = bsp_nprocs(), me = bsp_pid();
    if (argc != 2 || strcmp(argv[1], "hello-arg") != 0)
        bsp_abort("hello: pid %d did not get the program's arguments\n", me);
    long sum = 0, mine = me + 1;
    bsp_push_reg(&sum, sizeof sum);
    bsp_sync();
    bsp_send(0, NULL, &mine, sizeof mine);
    bsp_sync();
    for (bsp_size_t status; bsp_get_tag(&status, NULL), status >= 0;) {
        long v;
        bsp_move(&v, sizeof v);
        sum += v;
    }
    if (me == 0)
        printf("hello: p=%d sum=%ld\n", p, sum);
    bsp_end();
    return 0;
}
