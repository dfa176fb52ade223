/* stp_procfs.c - the files of procfs probes: /proc/systemtap/MODULE and
 * what is under it, their open/read/write/release, and their removal.
 *
 * Handlers run in the reader's or writer's own read()/write(), with the
 * file's mutex held, on the file's static buffer; copying to or from
 * user space happens outside the handler.  One opener at a time: a
 * second open waits for the first to close, so that a read returns the
 * content that one run of the read probe made for its open.
 */
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/proc_fs.h>

static struct proc_dir_entry *_stp_procfs_mod;

/* Whether an opener may stop waiting: it took the file, or the file
 * is being removed (the caller looks again; a file taken then stays
 * taken, and nobody opens it any more).
 */
static bool _stp_procfs_take(struct stp_procfs_file *f)
{
	return READ_ONCE(f->closing) || !atomic_cmpxchg(&f->busy, 0, 1);
}

static int _stp_procfs_open(struct inode *inode, struct file *file)
{
	struct stp_procfs_file *f = pde_data(inode);
	int rc;

	if (file->f_flags & O_NONBLOCK) {
		if (READ_ONCE(f->closing))
			return -ENOENT;
		if (atomic_cmpxchg(&f->busy, 0, 1))
			return -EAGAIN;
	} else {
		rc = wait_event_interruptible(f->wq, _stp_procfs_take(f));
		if (rc)
			return rc;
		/* _stp_procfs_stop waits for this open to return */
		if (READ_ONCE(f->closing))
			return -ENOENT;
	}
	mutex_lock(&f->lock);
	f->filled = false;
	f->rlen = 0;
	mutex_unlock(&f->lock);
	return 0;
}

static int _stp_procfs_release(struct inode *inode, struct file *file)
{
	struct stp_procfs_file *f = pde_data(inode);

	atomic_set(&f->busy, 0);
	wake_up(&f->wq);
	return 0;
}

/* The read probe fills rbuf once per open; -EIO when it did not run
 * (the session is not running, or it failed).
 */
static int _stp_procfs_fill(struct stp_procfs_file *f)
{
	struct stp_procfs_data d = { f->rbuf, f->rsize, 0 };

	f->rbuf[0] = '\0';
	if (__stp_probe_run_edata(f->read, f->read->handler, NULL, &d,
				  STAP_SESSION_RUNNING, STP_RUN_PRINT))
		return -EIO;
	f->rlen = d.len;
	f->filled = true;
	return 0;
}

static ssize_t _stp_procfs_read(struct file *file, char __user *ubuf,
				size_t n, loff_t *ppos)
{
	struct stp_procfs_file *f = pde_data(file_inode(file));
	ssize_t rc = 0;

	if (!f->read)
		return -EIO;
	if (mutex_lock_interruptible(&f->lock))
		return -ERESTARTSYS;
	if (!f->filled)
		rc = _stp_procfs_fill(f);
	if (!rc)
		rc = simple_read_from_buffer(ubuf, n, ppos, f->rbuf, f->rlen);
	mutex_unlock(&f->lock);
	return rc;
}

/* Each write runs the write probes on at most MAXSTRINGLEN - 1 bytes
 * (what $value holds); a writer's loop sends the rest.
 */
static ssize_t _stp_procfs_write(struct file *file, const char __user *ubuf,
				 size_t n, loff_t *ppos)
{
	struct stp_procfs_file *f = pde_data(file_inode(file));
	struct stp_procfs_data d;
	size_t len = min_t(size_t, n, MAXSTRINGLEN - 1);
	ssize_t rc = len;
	int i;

	if (!f->nwrites)
		return -EIO;
	if (mutex_lock_interruptible(&f->lock))
		return -ERESTARTSYS;
	if (copy_from_user(f->wbuf, ubuf, len)) {
		rc = -EFAULT;
		goto out;
	}
	f->wbuf[len] = '\0';
	d.buf = f->wbuf;
	d.size = MAXSTRINGLEN;
	d.len = len;
	for (i = 0; i < f->nwrites; i++)
		if (__stp_probe_run_edata(f->writes[i], f->writes[i]->handler,
					  NULL, &d, STAP_SESSION_RUNNING,
					  STP_RUN_PRINT))
			rc = -EIO;
	if (rc > 0)
		*ppos += rc;
out:
	mutex_unlock(&f->lock);
	return rc;
}

static const struct proc_ops _stp_procfs_ops = {
	.proc_open = _stp_procfs_open,
	.proc_read = _stp_procfs_read,
	.proc_write = _stp_procfs_write,
	.proc_release = _stp_procfs_release,
	.proc_lseek = default_llseek,
};

/* /proc/systemtap/MODULE.  /proc/systemtap is shared by every module
 * (and by SystemTap's): found through the VFS, or made, under the lock
 * of /proc's directory so that two modules starting at once do not
 * both make it.  It stays when the module goes: another may be using
 * it, and an empty directory holds nothing of ours.
 */
static struct proc_dir_entry *_stp_procfs_mkroot(void)
{
	struct proc_dir_entry *de = NULL;
	struct dentry *d;
	struct path proc;
	const char *name;

	if (kern_path("/proc", LOOKUP_DIRECTORY, &proc))
		return NULL;
	inode_lock(d_inode(proc.dentry));
	d = lookup_one_len("systemtap", proc.dentry, strlen("systemtap"));
	if (!IS_ERR(d) && d_really_is_positive(d)) {
		name = kasprintf(GFP_KERNEL, "systemtap/%s", stp_module_name);
		if (name)
			de = proc_mkdir(name, NULL);
		kfree(name);
	} else if (!IS_ERR(d) || PTR_ERR(d) == -ENOENT) {
		de = proc_mkdir("systemtap", NULL);
		de = de ? proc_mkdir(stp_module_name, de) : NULL;
	}
	if (!IS_ERR(d))
		dput(d);
	inode_unlock(d_inode(proc.dentry));
	path_put(&proc);
	return de;
}

int _stp_procfs_start(struct stp_procfs_dir *d, int nd,
		      struct stp_procfs_file *f, int nf)
{
	int i;

	for (i = 0; i < nf; i++) {
		atomic_set(&f[i].busy, 0);
		mutex_init(&f[i].lock);
		init_waitqueue_head(&f[i].wq);
		f[i].closing = false;
	}
	_stp_procfs_mod = _stp_procfs_mkroot();
	if (!_stp_procfs_mod)
		goto fail;
	for (i = 0; i < nd; i++) {
		d[i].pde = proc_mkdir(d[i].name, d[i].parent < 0 ?
				      _stp_procfs_mod : d[d[i].parent].pde);
		if (!d[i].pde)
			goto fail;
	}
	for (i = 0; i < nf; i++)
		if (!proc_create_data(f[i].name, S_IFREG | f[i].mode,
				      f[i].dir < 0 ? _stp_procfs_mod :
				      d[f[i].dir].pde, &_stp_procfs_ops,
				      &f[i]))
			goto fail;
	return 0;

fail:
	_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot create "
			"/proc/systemtap/%s and its procfs probe files\n",
			stp_module_name);
	_stp_procfs_stop(f, nf);
	return -ENOMEM;
}

void _stp_procfs_stop(struct stp_procfs_file *f, int nf)
{
	int i;

	/* waiting openers give up; proc_remove() waits for the reads and
	 * writes under way and releases the files still open
	 */
	for (i = 0; i < nf; i++) {
		WRITE_ONCE(f[i].closing, true);
		wake_up_all(&f[i].wq);
	}
	proc_remove(_stp_procfs_mod);
	_stp_procfs_mod = NULL;
}
