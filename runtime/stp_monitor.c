/* stp_monitor.c - stap --monitor, the module's side: per-probe hits and
 * cycles, and the debugfs file "monitor" beside the control file, read
 * by staprun -M for its live view (loader/monitor.c) and written with
 * its commands.  The report is made in process context, at read(); the
 * globals are read under their own locks.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "stp_monitor.h"
#include "stp_probe.h"
#include "stp_session.h"

bool _stp_monitor_paused;
static struct dentry *_stp_monitor_file;

void _stp_monitor_account(const struct stp_probe *cp, u64 cycles)
{
	/* the table is the module's own, writable: only the pointer the
	 * handlers get is const
	 */
	struct stp_probe *p = (struct stp_probe *)cp;
	s64 old;

	atomic64_inc(&p->hits);
	atomic64_add((s64)cycles, &p->cycles);
	old = atomic64_read(&p->max_cycles);
	while ((s64)cycles > old &&
	       !atomic64_try_cmpxchg(&p->max_cycles, &old, (s64)cycles))
		;
	old = atomic64_read(&p->min_cycles);
	while ((!old || (s64)cycles < old) &&
	       !atomic64_try_cmpxchg(&p->min_cycles, &old, (s64)cycles))
		;
}

bool _stp_monitor_lock(struct stp_rwlock *l, unsigned long *flags)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		local_irq_save(*flags);
		if (arch_write_trylock(&l->raw))
			return true;
		local_irq_restore(*flags);
		udelay(TRYLOCKDELAY);
	}
	return false;
}

void _stp_monitor_unlock(struct stp_rwlock *l, unsigned long flags)
{
	arch_write_unlock(&l->raw);
	local_irq_restore(flags);
}

void _stp_monitor_long(struct seq_file *m, const char *name, long v)
{
	seq_printf(m, "global %s %ld\n", name, v);
}

/* Quoted, on one line: control characters become '?'. */
void _stp_monitor_str(struct seq_file *m, const char *name, const char *s)
{
	seq_printf(m, "global %s \"", name);
	for (; *s; s++)
		seq_putc(m, (unsigned char)*s < ' ' || *s == 0x7f ? '?' : *s);
	seq_puts(m, "\"\n");
}

void _stp_monitor_array(struct seq_file *m, const char *name,
			unsigned int size)
{
	seq_printf(m, "global %s [%u]\n", name, size);
}

void _stp_monitor_stat(struct seq_file *m, const char *name, s64 count,
		       s64 sum)
{
	seq_printf(m, "global %s @count=%lld @sum=%lld\n", name,
		   (long long)count, (long long)sum);
}

void _stp_monitor_busy(struct seq_file *m, const char *name)
{
	seq_printf(m, "global %s (busy)\n", name);
}

static const char *_stp_monitor_state(void)
{
	switch (_stp_session_get_state()) {
	case STAP_SESSION_STARTING:
		return "starting";
	case STAP_SESSION_RUNNING:
		return READ_ONCE(_stp_monitor_paused) ? "paused" : "running";
	case STAP_SESSION_ERROR:
		return "error";
	default:
		return "stopping";
	}
}

/* The report: "state S", "errors N", "skipped N", then one line per
 * probe, "probe INDEX HITS CYCLES MIN MAX POINT", and one per global.
 */
static int _stp_monitor_show(struct seq_file *m, void *unused)
{
	int i;

	seq_printf(m, "state %s\nerrors %d\nskipped %d\n",
		   _stp_monitor_state(), atomic_read(&_stp_error_count),
		   atomic_read(&_stp_skipped_count));
	for (i = 0; i < stp_script.nprobes; i++) {
		struct stp_probe *p = &stp_script.probes[i];

		seq_printf(m, "probe %d %lld %lld %lld %lld %s\n", i,
			   (long long)atomic64_read(&p->hits),
			   (long long)atomic64_read(&p->cycles),
			   (long long)atomic64_read(&p->min_cycles),
			   (long long)atomic64_read(&p->max_cycles), p->pp);
	}
	if (stp_script.monitor_globals)
		stp_script.monitor_globals(m);
	return 0;
}

static int _stp_monitor_open(struct inode *inode, struct file *f)
{
	return single_open(f, _stp_monitor_show, NULL);
}

static void _stp_monitor_reset(void)
{
	int i;

	for (i = 0; i < stp_script.nprobes; i++) {
		struct stp_probe *p = &stp_script.probes[i];

		atomic64_set(&p->hits, 0);
		atomic64_set(&p->cycles, 0);
		atomic64_set(&p->min_cycles, 0);
		atomic64_set(&p->max_cycles, 0);
	}
	if (stp_script.monitor_reset)
		stp_script.monitor_reset();
}

/* "pause", "resume" or "reset", with or without a newline. */
static ssize_t _stp_monitor_write(struct file *f, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char cmd[16];
	size_t n = min(len, sizeof(cmd) - 1);

	if (copy_from_user(cmd, ubuf, n))
		return -EFAULT;
	cmd[n] = '\0';
	if (n && cmd[n - 1] == '\n')
		cmd[n - 1] = '\0';
	if (!strcmp(cmd, "pause"))
		WRITE_ONCE(_stp_monitor_paused, true);
	else if (!strcmp(cmd, "resume"))
		WRITE_ONCE(_stp_monitor_paused, false);
	else if (!strcmp(cmd, "reset"))
		_stp_monitor_reset();
	else
		return -EINVAL;
	return (ssize_t)len;
}

static const struct file_operations _stp_monitor_fops = {
	.owner = THIS_MODULE,
	.open = _stp_monitor_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = _stp_monitor_write,
};

int _stp_monitor_init(void)
{
	struct dentry *d;

	if (!stp_script.monitor)
		return 0;
	d = debugfs_create_file("monitor", 0600, _stp_module_dir, NULL,
				&_stp_monitor_fops);
	if (IS_ERR(d))
		return PTR_ERR(d);
	_stp_monitor_file = d;
	return 0;
}

void _stp_monitor_exit(void)
{
	debugfs_remove(_stp_monitor_file);
	_stp_monitor_file = NULL;
}
