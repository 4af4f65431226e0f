/* A task's root, working directory and umask (shared under CLONE_FS). */
#include "config.h"
#include "sentry/vfs/vfs.h"
#include "lib/util.h"

#include <stdlib.h>

struct fs_struct *fs_struct_new(const struct path *root, const struct path *cwd)
{
	struct fs_struct *fs = xzalloc(sizeof(*fs));

	fs->refs = 1;
	pthread_mutex_init(&fs->lock, NULL);
	fs->root = *root;
	path_get(&fs->root);
	fs->cwd = *cwd;
	path_get(&fs->cwd);
	fs->umask = 022;
	return fs;
}

struct fs_struct *fs_struct_get(struct fs_struct *fs)
{
	__atomic_add_fetch(&fs->refs, 1, __ATOMIC_RELAXED);
	return fs;
}

void fs_struct_put(struct fs_struct *fs)
{
	if (!fs || __atomic_sub_fetch(&fs->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	path_put(&fs->root);
	path_put(&fs->cwd);
	pthread_mutex_destroy(&fs->lock);
	free(fs);
}

void fs_get_root(struct fs_struct *fs, struct path *out)
{
	pthread_mutex_lock(&fs->lock);
	*out = fs->root;
	path_get(out);
	pthread_mutex_unlock(&fs->lock);
}

void fs_get_cwd(struct fs_struct *fs, struct path *out)
{
	pthread_mutex_lock(&fs->lock);
	*out = fs->cwd;
	path_get(out);
	pthread_mutex_unlock(&fs->lock);
}

void fs_set_cwd(struct fs_struct *fs, const struct path *p)
{
	struct path old;

	pthread_mutex_lock(&fs->lock);
	old = fs->cwd;
	fs->cwd = *p;
	path_get(&fs->cwd);
	pthread_mutex_unlock(&fs->lock);
	path_put(&old);
}

void fs_set_root(struct fs_struct *fs, const struct path *p)
{
	struct path old;

	pthread_mutex_lock(&fs->lock);
	old = fs->root;
	fs->root = *p;
	path_get(&fs->root);
	pthread_mutex_unlock(&fs->lock);
	path_put(&old);
}
