/* profile_check.c: does known communication, then process 0 checks the profile the runtime wrote. */
#include <bsp.h>
#include <bsp_profile.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

static void expect(const char *what, int step, int pid, long long got, long long want)
{
    if (got != want) {
        fprintf(stderr, "profile_check: superstep %d pid %d %s = %lld, expected %lld\n",
                step, pid, what, got, want);
        failures++;
    }
}

/* Superstep 1: i puts i + 1 words to its right neighbour; superstep 2:
 * everybody gets 2 words from its left neighbour and sends 3 bytes to 0;
 * superstep 3 only counts operations. */
static void communicate(void)
{
    int p = bsp_nprocs(), me = bsp_pid();
    int64_t area[64] = {0}, src[64] = {0};
    bsp_push_reg(area, sizeof area);
    bsp_sync();
    bsp_profile_ops(100 * (unsigned long long)(me + 1));
    bsp_put((me + 1) % p, src, area, 0, (me + 1) * (int)sizeof(int64_t));
    bsp_sync();
    bsp_get((me + p - 1) % p, area, 0, src, 2 * sizeof(int64_t));
    bsp_send(0, NULL, "abc", 3);
    bsp_sync();
    bsp_profile_ops(5);
}

static long long field(json_t *procs, int pid, const char *name)
{
    return json_integer_value(json_object_get(json_array_get(procs, (size_t)pid), name));
}

/* The counts each process should show, worked out from the pattern above;
 * communication with oneself is not counted. */
static void check_step(json_t *steps, int k, int p)
{
    json_t *procs = json_object_get(json_array_get(steps, (size_t)k), "procs");
    long long h = 0;
    for (int i = 0; i < p; i++) {
        int left = (i + p - 1) % p;
        long long ops = 0, sent = 0, received = 0, messages = 0, sent_bytes = 0, recv_bytes = 0;
        if (k == 1) {
            ops = 100 * (i + 1);
            sent = p > 1 ? i + 1 : 0;
            received = p > 1 ? left + 1 : 0;
            sent_bytes = 8 * sent, recv_bytes = 8 * received, messages = 1;
        } else if (k == 2) {
            sent = received = p > 1 ? 2 : 0;
            sent_bytes = recv_bytes = 8 * sent;
            if (i != 0)
                sent += 1, sent_bytes += 3;
            else
                received += p - 1, recv_bytes += 3 * (p - 1);
            messages = 2;
        } else if (k == 3) {
            ops = 5;
        }
        expect("ops", k, i, field(procs, i, "ops"), ops);
        expect("words_sent", k, i, field(procs, i, "words_sent"), sent);
        expect("words_received", k, i, field(procs, i, "words_received"), received);
        expect("bytes_sent", k, i, field(procs, i, "bytes_sent"), sent_bytes);
        expect("bytes_received", k, i, field(procs, i, "bytes_received"), recv_bytes);
        expect("messages", k, i, field(procs, i, "messages"), messages);
        h = sent > h ? sent : h;
        h = received > h ? received : h;
    }
    expect("h_words", k, -1, json_integer_value(json_object_get(json_array_get(steps, (size_t)k), "h_words")), h);
}

int main(int argc, char **argv)
{
    int p = argc > 1 ? atoi(argv[1]) : 1;
    bsp_begin(p);
    communicate();
    bsp_end();
    json_error_t error;
    json_t *root = json_load_file(getenv("BSP_PROFILE"), 0, &error);
    if (!root) {
        fprintf(stderr, "profile_check: cannot read the profile: %s\n", error.text);
        return 1;
    }
    json_t *steps = json_object_get(root, "supersteps");
    expect("p", 0, -1, json_integer_value(json_object_get(root, "p")), p);
    expect("supersteps", 0, -1, (long long)json_array_size(steps), 4);
    for (int k = 0; k < 4 && k < (int)json_array_size(steps); k++) {
        double seconds = json_real_value(json_object_get(json_array_get(steps, (size_t)k), "seconds"));
        if (!(seconds >= 0))
            expect("seconds >= 0", k, -1, 0, 1);
        /* A process's work is the part of its superstep before it reached
         * the sync: process 0's is within the superstep's seconds (its own). */
        json_t *procs = json_object_get(json_array_get(steps, (size_t)k), "procs");
        for (int i = 0; i < p; i++) {
            json_t *work = json_object_get(json_array_get(procs, (size_t)i), "work_seconds");
            double w = json_real_value(work);
            if (!json_is_real(work) || !(w >= 0) || (i == 0 && !(w <= seconds)))
                expect("0 <= work_seconds (<= seconds at pid 0)", k, i, 0, 1);
        }
        check_step(steps, k, p);
    }
    json_decref(root);
    if (failures)
        return 1;
    printf("profile_check: ok\n");
    return 0;
}
