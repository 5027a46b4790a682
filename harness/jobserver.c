/* jobserver: see jobserver.h. */
#define _GNU_SOURCE
#include "jobserver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int jobserver_open(struct jobserver *js, int slots)
{
	*js = (struct jobserver){ .fd = { -1, -1 }, .slots = slots < 1 ? 1 : slots };
	pthread_mutex_init(&js->lock, NULL);
	if (pipe2(js->fd, O_CLOEXEC))
		return -1;
	for (int i = 0; i < js->slots; i++) {
		/* the bytes' value means nothing to make; '+' is what make itself writes */
		if (write(js->fd[1], "+", 1) != 1) {
			int e = errno;

			jobserver_close(js);
			errno = e;
			return -1;
		}
	}
	snprintf(js->makeflags, sizeof(js->makeflags), "MAKEFLAGS=-j%d --jobserver-auth=%d,%d",
		 js->slots, js->fd[0], js->fd[1]);
	return 0;
}

int jobserver_take(struct jobserver *js, char *err, size_t errlen)
{
	struct pollfd readable = { .events = POLLIN };
	char token;

	if (!js)
		return 0;
	/* counted before the read: while we wait, the pipe is not all there is */
	pthread_mutex_lock(&js->lock);
	js->held++;
	pthread_mutex_unlock(&js->lock);
	readable.fd = js->fd[0];
	for (;;) {
		ssize_t n = read(js->fd[0], &token, 1);

		if (n == 1)
			return 0;
		if (n == 0)
			errno = EPIPE;
		/* make 4.3 makes the read end non-blocking (it waits with pselect), and that flag
		 * is the pipe's, so ours is too: wait until a slot is given back */
		else if (errno == EAGAIN || errno == EWOULDBLOCK)
			n = poll(&readable, 1, -1);
		if (n <= 0 && errno != EINTR) {
			snprintf(err, errlen, "cannot take a job slot from the jobserver's pipe: %s",
				 strerror(errno));
			pthread_mutex_lock(&js->lock);
			js->held--;
			pthread_mutex_unlock(&js->lock);
			return -1;
		}
	}
}

static void put_token(struct jobserver *js)
{
	ssize_t n;

	do
		n = write(js->fd[1], "+", 1);
	while (n < 0 && errno == EINTR);
}

void jobserver_give(struct jobserver *js)
{
	int in_pipe = 0;

	if (!js)
		return;
	put_token(js);
	pthread_mutex_lock(&js->lock);
	/* nothing of ours runs or waits: every slot must be in the pipe; a killed make's are not */
	if (--js->held == 0 && ioctl(js->fd[0], FIONREAD, &in_pipe) == 0)
		for (; in_pipe < js->slots; in_pipe++)
			put_token(js);
	pthread_mutex_unlock(&js->lock);
}

void jobserver_close(struct jobserver *js)
{
	for (int i = 0; i < 2; i++)
		if (js->fd[i] >= 0)
			close(js->fd[i]);
	js->fd[0] = js->fd[1] = -1;
}
