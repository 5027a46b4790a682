/* jobserver: one pool of job slots shared by every make the harness runs at once.
 *
 * Both arches build at the same time (run.c), each through its own make. Each make alone would
 * run --jobs compile jobs, so two would run twice as many as the machine has room for. GNU
 * make's jobserver protocol shares one count instead: a pipe holding one byte per free slot.
 * A make that finds "--jobserver-auth=R,W" in MAKEFLAGS (and no -j on its command line) is a
 * client: it runs its first job in the slot its parent took for it, and reads one byte from R
 * for each job more, writing it back to W when that job ends. Kbuild's own sub-makes inherit
 * it, so every compile job of every build counts against one pool.
 *
 * The harness is the parent: it takes a slot before it starts a make (or a guest, which keeps
 * a core busy too) and gives it back when that child has ended. A build that runs out of time
 * is stopped with SIGTERM first (spawn.h), and GNU make answers SIGTERM by reaping its jobs and
 * writing their slots back, so a timed-out make returns every slot at once. A make killed
 * outright (SIGKILL: the OOM killer, or one that ignored SIGTERM past the grace) cannot give
 * back the slots it had read, and the pipe's bytes do not say whose they were. So whenever the
 * harness holds no slot at all (no make and no guest of the run is running, and no thread is
 * taking one), every slot must be back in the pipe, and the last give tops the pipe up to the
 * pool's size: such slots come back at the next quiet moment (at the latest between two
 * kernels of the arch that builds last). Getting them back sooner would take a pipe per make
 * and the harness handing bytes between them (a broker), for a case no night has met.
 */
#ifndef KCMPM_JOBSERVER_H
#define KCMPM_JOBSERVER_H

#include <pthread.h>
#include <stddef.h>

struct jobserver {
	int fd[2];		/* the pipe: read a byte to take a slot, write it to give it back */
	int slots;		/* how many it was opened with */
	int held;		/* slots the harness holds or is waiting for (under lock) */
	pthread_mutex_t lock;
	char makeflags[96];	/* "MAKEFLAGS=-jN --jobserver-auth=R,W" for a client make */
};

/* Opens a pool of slots (at least 1), its pipe close-on-exec (spawn passes it to the makes
 * that use it). Returns 0, or -1 with errno set. */
int jobserver_open(struct jobserver *js, int slots);

/* Takes one slot, waiting for a child to give one back when none is free (whether or not a
 * make has made the pipe non-blocking). A NULL pool has no slots to take: 0 at once. Returns
 * 0, or -1 with why in err when the pipe fails. */
int jobserver_take(struct jobserver *js, char *err, size_t errlen);

/* Gives back a slot taken with jobserver_take; nothing for a NULL pool. The last one given
 * back tops the pipe up to the pool's size (slots a killed make held). */
void jobserver_give(struct jobserver *js);

/* Closes the pipe. Safe on a pool that was never opened (fd -1). */
void jobserver_close(struct jobserver *js);

#endif
