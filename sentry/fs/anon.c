#include "config.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/file.h"
#include "lib/util.h"

#include <pthread.h>

#define ANON_INODE_FS_MAGIC 0x09041934
#define ANON_KINDS	    16

static const struct inode_ops anon_inode_ops = {0};

/*
 * The files have no path (nothing can be walked or changed through them);
 * the kind's name is found from the file's ops.
 */
static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	struct super_block *sb;
	struct inode *inode;
	struct {
		const struct file_ops *ops;
		const char *name;
	} kinds[ANON_KINDS];
} anon = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static void anon_init(void)
{
	anon.sb = sb_new(NULL, "anon_inodefs", ANON_INODE_FS_MAGIC);
	anon.inode = inode_new(anon.sb, &anon_inode_ops, 0600);
}

struct file *anon_file_new(const char *name, const struct file_ops *ops, int flags, void *priv)
{
	struct file *f;

	pthread_once(&anon.once, anon_init);
	pthread_mutex_lock(&anon.lock);
	for (unsigned i = 0; i < ANON_KINDS; i++) {
		if (anon.kinds[i].ops == ops)
			break;
		if (!anon.kinds[i].ops) {
			anon.kinds[i].ops = ops;
			anon.kinds[i].name = name;
			break;
		}
	}
	pthread_mutex_unlock(&anon.lock);
	f = file_alloc(ops, flags, priv);
	f->inode = inode_get(anon.inode);
	/* Their llseek ops are Linux's noop_llseek: lseek returns 0. */
	if (ops->llseek)
		f->fmode |= FMODE_LSEEK;
	return f;
}

const char *anon_file_name(struct file *f)
{
	const char *name = NULL;

	if (!f->inode || f->inode != anon.inode)
		return NULL;
	pthread_mutex_lock(&anon.lock);
	for (unsigned i = 0; i < ANON_KINDS && anon.kinds[i].ops; i++)
		if (anon.kinds[i].ops == f->ops)
			name = anon.kinds[i].name;
	pthread_mutex_unlock(&anon.lock);
	return name ? name : "[unknown]";
}
