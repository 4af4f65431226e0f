/*
 * What a sentry thread made on a platform and must outlive: a stub process
 * dies with (or is traced by) the thread that spawned it, so that thread
 * waits in the platform's thread_exit() until each stub process it spawned
 * is released. Shared by the ptrace and systrap platforms.
 */
#ifndef RUNG_PLATFORM_SPAWNER_H
#define RUNG_PLATFORM_SPAWNER_H

struct spawner;

/* The calling thread's spawner, holding one more stub process. */
struct spawner *spawner_hold(void);
/* A stub process held by sp is released (from any thread). */
void spawner_release(struct spawner *sp);
/* The calling thread ends: wait until every stub process it holds is
 * released, then free its spawner. */
void spawner_thread_exit(void);

#endif
