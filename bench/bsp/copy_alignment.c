/* copy_alignment.c: memcpy's time per word by how far the destination lies past the source modulo 64 (bsprun's GLIBC_TUNABLES). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BYTES = 84560, TRIALS = 300 }; /* mss1's largest message at n = 40, p = 2 */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The fastest of TRIALS copies, in seconds per 8-byte word. */
static double copy_seconds_per_word(char *dst, const char *src)
{
    double best = 1e9;
    for (int i = 0; i < TRIALS; i++) {
        double t = now();
        memcpy(dst, src, BYTES);
        __asm__ volatile("" : : "r"(dst) : "memory"); /* keep every copy */
        t = now() - t;
        best = t < best ? t : best;
    }
    return best / (BYTES / 8);
}

int main(void)
{
    char *src = aligned_alloc(4096, BYTES + 4096), *dst = aligned_alloc(4096, BYTES + 4096);
    if (!src || !dst)
        return 1;
    memset(src, 1, BYTES + 4096);
    memset(dst, 2, BYTES + 4096);
    const char *tunables = getenv("GLIBC_TUNABLES");
    printf("memcpy of %d bytes, ns a word by (dst - src) mod 64; GLIBC_TUNABLES=%s\n", BYTES,
           tunables ? tunables : "(unset)");
    for (int skew = 0; skew < 64; skew += 8)
        printf("%2d: %.2f\n", skew, 1e9 * copy_seconds_per_word(dst + skew, src));
    free(src);
    free(dst);
    return 0;
}
