/* A sentry thread's count of the stub processes it must outlive (spawner.h). */
#include "config.h"
#include "platform/spawner.h"
#include "lib/util.h"

#include <pthread.h>
#include <stdlib.h>

struct spawner {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int live; /* stub processes spawned by this thread, not yet released */
};

static __thread struct spawner *my_spawner;

struct spawner *spawner_hold(void)
{
	struct spawner *sp = my_spawner;

	if (!sp) {
		sp = my_spawner = xzalloc(sizeof(*sp));
		pthread_mutex_init(&sp->lock, NULL);
		pthread_cond_init(&sp->cond, NULL);
	}
	pthread_mutex_lock(&sp->lock);
	sp->live++;
	pthread_mutex_unlock(&sp->lock);
	return sp;
}

void spawner_release(struct spawner *sp)
{
	pthread_mutex_lock(&sp->lock);
	sp->live--;
	pthread_cond_broadcast(&sp->cond);
	pthread_mutex_unlock(&sp->lock);
}

void spawner_thread_exit(void)
{
	struct spawner *sp = my_spawner;

	if (!sp)
		return;
	pthread_mutex_lock(&sp->lock);
	while (sp->live > 0)
		pthread_cond_wait(&sp->cond, &sp->lock);
	pthread_mutex_unlock(&sp->lock);
	pthread_mutex_destroy(&sp->lock);
	pthread_cond_destroy(&sp->cond);
	free(sp);
	my_spawner = NULL;
}
