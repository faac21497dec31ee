/* mpi_link.h: the MPI plumbing the mpi and hybrid backends share: starting and ending MPI, and transfers of any size. */
#ifndef BSP_MPI_LINK_H
#define BSP_MPI_LINK_H

#include <mpi.h>
#include <stdbool.h>

#include "bsp_internal.h"

/* The size of MPI_COMM_WORLD, kept for bsp_nprocs after MPI_Finalize. */
extern int bsp_mpi_world;
/* We called MPI_Init, so we finalize. */
extern bool bsp_mpi_own;

/* Starts MPI for call (at thread support level, e.g. MPI_THREAD_SINGLE),
 * unless it is running; after the SPMD section it is an error. */
void bsp_mpi_start(const char *call, int level);
/* bsp_init as BSPlib has it: ranks other than 0 run spmd at once and end. */
void bsp_mpi_init(void (*spmd)(void), int argc, char **argv, int level);

/* Point-to-point transfers in flight on one communicator. */
struct bsp_mpi_link {
    MPI_Comm comm;
    size_t max_message;    /* bytes of the largest MPI message (more go in pieces) */
    struct bsp_buf requests; /* array of MPI_Request */
};

/* INT_MAX, or BSP_MPI_MAX_MESSAGE=BYTES (tests: pieces without gigabytes). */
size_t bsp_mpi_max_message(void);
/* The SPMD section's communicator for the first `members` ranks of the
 * world into link, and the runtime's profile, supersteps and buffers
 * started; a rank past them takes no part and exits here. */
void bsp_mpi_link_open(struct bsp_mpi_link *link, int rank, int members);
void bsp_mpi_post(struct bsp_mpi_link *link, bool send, char *data, uint64_t nbytes, int peer, int tag);
void bsp_mpi_post_recv(struct bsp_mpi_link *link, struct bsp_buf *b, uint64_t nbytes, int src, int tag);
void bsp_mpi_post_send(struct bsp_mpi_link *link, const struct bsp_buf *b, int dst, int tag);
void bsp_mpi_wait_all(struct bsp_mpi_link *link);

#endif
