/* stp_task.c - the process and thread events of stp_task.h, and the
 * target's process tree.
 *
 * A new task is seen where it first runs as itself: its return from the
 * clone, fork or vfork that created it, to user space, which the
 * kernel's sys_exit tracepoint reports (0 in the child).  An exit is
 * the sched_process_exit tracepoint, in the exiting task, after its
 * memory has been let go.  Processes and threads already running when
 * the probes are attached begin at their next return from a system call
 * (see "catching up").  Nothing is queued per task, so detaching the two
 * callbacks and freeing the table of those is all unregistration has to
 * do.
 */
#include <linux/binfmts.h>
#include <linux/bitmap.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sched/task_stack.h>
#include <asm/syscall.h>
#include <asm/unistd.h>
#ifdef CONFIG_IA32_EMULATION
#include <asm/unistd_32_ia32.h>
#endif

#include "stp_task.h"
#include "stp_tracepoint.h"

bool _stp_task_in_target(struct task_struct *t)
{
	pid_t target = _stp_target_pid();
	struct task_struct *parent;
	bool in = false;

	if (!target)
		return true;
	rcu_read_lock();
	while (t && t->pid > 0) {
		if (task_tgid_nr(t) == target) {
			in = true;
			break;
		}
		parent = rcu_dereference(t->real_parent);
		if (parent == t)
			break;
		t = parent;
	}
	rcu_read_unlock();
	return in;
}

static struct stp_task_probe *_stp_task_table;
static int _stp_task_count;

/* x86: whether the system call that regs return from creates a task. */
static bool _stp_task_cloning(struct pt_regs *regs)
{
	long nr = syscall_get_nr(current, regs);

#ifdef CONFIG_IA32_EMULATION
	if (in_ia32_syscall())
		return nr == __NR_ia32_clone || nr == __NR_ia32_fork ||
		       nr == __NR_ia32_vfork || nr == __NR_ia32_clone3;
#endif
#ifdef __X32_SYSCALL_BIT
	nr &= ~(long)__X32_SYSCALL_BIT;
#endif
	return nr == __NR_clone || nr == __NR_fork || nr == __NR_vfork ||
	       nr == __NR_clone3;
}

/* Only user tasks: not kernel threads, not io_uring's workers. */
static bool _stp_task_user(struct task_struct *t)
{
	return !(t->flags & (PF_KTHREAD | PF_IO_WORKER)) &&
	       _stp_task_in_target(t);
}

/* The probes of event for current, which runs the program exe (NULL:
 * not known); paths_only: only those that name a program (at an exec,
 * which is no new process for the others).
 */
static void _stp_task_fire(int event, struct pt_regs *regs,
			   struct inode *exe, bool paths_only)
{
	struct stp_task_probe *table = READ_ONCE(_stp_task_table);
	pid_t tgid = task_tgid_nr(current);
	int i;

	for (i = 0; table && i < _stp_task_count; i++) {
		if (table[i].event != event ||
		    (table[i].pid && table[i].pid != tgid))
			continue;
		if (table[i].inode ? table[i].inode != exe : paths_only)
			continue;
		_stp_probe_run(table[i].probe, regs, STAP_SESSION_RUNNING);
	}
}

/* ---------------------------------------------------------- programs */

/* process("PATH") probes fire in the processes that run PATH: told by
 * the inode of their executable while they have their memory (a new
 * task, an exec, catching up), and at the end, when it is gone, by what
 * they ran when they began: a table of the processes that began running
 * a program with end probes (tgid, leader's start time, inode),
 * STP_TASK_PROGS slots allocated at start.  A process that finds the
 * table full is counted as a skipped probe and does not end.
 */
#define STP_TASK_PROGS 1024

struct stp_task_prog {
	pid_t tgid;
	u64 start;
	struct inode *inode;
};

static struct stp_task_prog *_stp_task_progs;
static DEFINE_RAW_SPINLOCK(_stp_task_progs_lock);

/* The inode of current's executable, to compare (no reference kept). */
static struct inode *_stp_task_exe(void)
{
	struct mm_struct *mm = current->mm;
	struct inode *inode = NULL;
	struct file *f;

	if (!mm)
		return NULL;
	rcu_read_lock();
	f = rcu_dereference(mm->exe_file);
	if (f)
		inode = file_inode(f);
	rcu_read_unlock();
	return inode;
}

/* Whether an end probe names the program exe. */
static bool _stp_task_tracks(struct inode *exe)
{
	struct stp_task_probe *table = READ_ONCE(_stp_task_table);
	int i;

	for (i = 0; exe && table && i < _stp_task_count; i++)
		if (table[i].inode == exe &&
		    (table[i].event == STP_TASK_END ||
		     table[i].event == STP_TASK_THREAD_END))
			return true;
	return false;
}

static void _stp_task_prog_add(struct task_struct *t, struct inode *exe)
{
	u64 start = t->group_leader->start_time;
	struct stp_task_prog *free = NULL, *p;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&_stp_task_progs_lock, flags);
	for (i = 0; i < STP_TASK_PROGS; i++) {
		p = &_stp_task_progs[i];
		if (p->tgid == t->tgid && p->start == start) {
			free = p;
			break;
		}
		if (!p->tgid && !free)
			free = p;
	}
	if (free) {
		free->tgid = t->tgid;
		free->start = start;
		free->inode = exe;
	}
	raw_spin_unlock_irqrestore(&_stp_task_progs_lock, flags);
	if (!free)
		_stp_probe_skipped_why(STP_SKIP_OTHER);
}

/* What t's process began running, if it is in the table; taken out of
 * it with drop.
 */
static struct inode *_stp_task_prog_of(struct task_struct *t, bool drop)
{
	u64 start = t->group_leader->start_time;
	struct inode *exe = NULL;
	unsigned long flags;
	int i;

	if (!_stp_task_progs)
		return NULL;
	raw_spin_lock_irqsave(&_stp_task_progs_lock, flags);
	for (i = 0; i < STP_TASK_PROGS; i++) {
		struct stp_task_prog *p = &_stp_task_progs[i];

		if (p->tgid == t->tgid && p->start == start) {
			exe = p->inode;
			if (drop)
				p->tgid = 0;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&_stp_task_progs_lock, flags);
	return exe;
}

/* A process or thread begins in current: the begin probes for it, and
 * for a process whose program has end probes, its entry in the table.
 */
static void _stp_task_begin(int event, struct pt_regs *regs,
			    bool paths_only)
{
	struct inode *exe = _stp_task_exe();

	if (event == STP_TASK_BEGIN && _stp_task_progs &&
	    _stp_task_tracks(exe))
		_stp_task_prog_add(current, exe);
	_stp_task_fire(event, regs, exe, paths_only);
}

/* ------------------------------------------------------- catching up */

/* The threads that were running when the begin probes were attached,
 * sorted by pid, with their start times (a pid used again since is
 * another task).  Each is pending until its next return from a system
 * call, where it runs the begin probes it would have run had it started
 * later (process.begin in any thread of a process, with its leader's
 * entry, thread.begin in each other thread), or until another task turns
 * out to hold its pid.  A task that makes no system call meanwhile (a
 * pure computation, a stopped one) does not begin.
 */
struct stp_task_old {
	pid_t pid;
	u64 start;
};

static struct stp_task_old *_stp_task_olds;
static unsigned long *_stp_task_olds_pending;
static int _stp_task_nolds;
static atomic_t _stp_task_olds_left = ATOMIC_INIT(0);

static int _stp_task_old_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct stp_task_old *)a)->pid;
	pid_t y = ((const struct stp_task_old *)b)->pid;

	return x < y ? -1 : x > y;
}

/* Whether t was running at the start and has not begun yet: claims it. */
static bool _stp_task_old_claim(struct task_struct *t)
{
	int lo = 0, hi = _stp_task_nolds - 1, mid;
	const struct stp_task_old *o;

	while (lo <= hi) {
		mid = lo + (hi - lo) / 2;
		o = &_stp_task_olds[mid];
		if (o->pid == t->pid) {
			if (!test_and_clear_bit(mid, _stp_task_olds_pending))
				return false;
			atomic_dec(&_stp_task_olds_left);
			return o->start == t->start_time;
		}
		if (o->pid < t->pid)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

/* In current at a system call's return; born: it is a new task's first
 * return, whose begin the caller runs (the table may hold it as well
 * when it started while the table was taken).
 */
static void _stp_task_catch_up(struct pt_regs *regs, bool born)
{
	bool user = _stp_task_user(current);

	if (_stp_task_old_claim(current->group_leader) && user && !born)
		_stp_task_begin(STP_TASK_BEGIN, regs, false);
	if (!thread_group_leader(current) &&
	    _stp_task_old_claim(current) && user && !born)
		_stp_task_begin(STP_TASK_THREAD_BEGIN, regs, false);
}

/* Take the table of the user threads running now; 0 or -ENOMEM. */
static int _stp_task_olds_take(void)
{
	struct task_struct *p, *t;
	int n = 0, cap;

	rcu_read_lock();
	for_each_process_thread(p, t)
		n++;
	rcu_read_unlock();
	cap = n + n / 4 + 16;
	_stp_task_olds = kvcalloc(cap, sizeof(*_stp_task_olds), GFP_KERNEL);
	_stp_task_olds_pending = bitmap_zalloc(cap, GFP_KERNEL);
	if (!_stp_task_olds || !_stp_task_olds_pending)
		return -ENOMEM;
	n = 0;
	rcu_read_lock();
	for_each_process_thread(p, t) {
		if (n == cap)
			break;
		if (t->flags & (PF_KTHREAD | PF_IO_WORKER))
			continue;
		_stp_task_olds[n].pid = t->pid;
		_stp_task_olds[n].start = t->start_time;
		n++;
	}
	rcu_read_unlock();
	sort(_stp_task_olds, n, sizeof(*_stp_task_olds), _stp_task_old_cmp,
	     NULL);
	_stp_task_nolds = n;
	bitmap_set(_stp_task_olds_pending, 0, n);
	atomic_set(&_stp_task_olds_left, n);
	return 0;
}

/* After the callbacks are detached. */
static void _stp_task_olds_free(void)
{
	atomic_set(&_stp_task_olds_left, 0);
	kvfree(_stp_task_olds);
	bitmap_free(_stp_task_olds_pending);
	_stp_task_olds = NULL;
	_stp_task_olds_pending = NULL;
	_stp_task_nolds = 0;
}

static void _stp_task_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	bool born = !ret && _stp_task_cloning(regs);

	if (unlikely(atomic_read(&_stp_task_olds_left)))
		_stp_task_catch_up(regs, born);
	if (!born || !_stp_task_user(current))
		return;
	_stp_task_begin(thread_group_leader(current) ? STP_TASK_BEGIN :
			STP_TASK_THREAD_BEGIN, regs, false);
}

/* After an exec, in current: a process that ran a probed program ends
 * for it, and one that now runs a probed program begins for it (the
 * probes without a program see no new process).
 */
static void _stp_task_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct inode *old;

	if (p != current || !_stp_task_user(current))
		return;
	old = _stp_task_prog_of(current, true);
	if (old)
		_stp_task_fire(STP_TASK_END, regs, old, true);
	_stp_task_begin(STP_TASK_BEGIN, regs, true);
}

/* Each exiting thread counts itself out of signal->live before this
 * tracepoint, but passes it later, so every thread that passes it after
 * the last one counted itself out finds the process dead.  The first
 * of them claims the process's end, in a ring of the last claims
 * (processes told apart by tgid and the leader's start time; the
 * threads of one process come close together).  A thread alone in its
 * process by then (the others released) only looks: one of them may
 * have claimed the end before it went.
 */
#define STP_TASK_ENDS 128

struct stp_task_end {
	pid_t tgid;
	u64 start;
};

static struct stp_task_end _stp_task_ends[STP_TASK_ENDS];
static unsigned int _stp_task_ends_next;
static DEFINE_RAW_SPINLOCK(_stp_task_ends_lock);

static bool _stp_task_last(struct task_struct *t)
{
	struct stp_task_end e = { t->tgid, t->group_leader->start_time };
	unsigned long flags;
	bool first = true;
	int i;

	if (atomic_read(&t->signal->live))
		return false;
	raw_spin_lock_irqsave(&_stp_task_ends_lock, flags);
	for (i = 0; i < STP_TASK_ENDS && first; i++)
		first = _stp_task_ends[i].tgid != e.tgid ||
			_stp_task_ends[i].start != e.start;
	if (first && get_nr_threads(t) > 1)
		_stp_task_ends[_stp_task_ends_next++ % STP_TASK_ENDS] = e;
	raw_spin_unlock_irqrestore(&_stp_task_ends_lock, flags);
	return first;
}

static void _stp_task_exit(void *data, struct task_struct *t)
{
	struct pt_regs *regs = task_pt_regs(t);

	if (t != current || !_stp_task_user(t))
		return;
	if (!thread_group_leader(t))
		_stp_task_fire(STP_TASK_THREAD_END, regs,
			       _stp_task_prog_of(t, false), false);
	if (_stp_task_last(t))
		_stp_task_fire(STP_TASK_END, regs, _stp_task_prog_of(t, true),
			       false);
}

static struct stp_tracepoint _stp_task_tps[] = {
	{ .name = "sys_exit", .fn = _stp_task_sys_exit },
	{ .name = "sched_process_exit", .fn = _stp_task_exit },
	{ .name = "sched_process_exec", .fn = _stp_task_exec },
};

static bool _stp_task_is_begin(const struct stp_task_probe *tp)
{
	return tp->event == STP_TASK_BEGIN ||
	       tp->event == STP_TASK_THREAD_BEGIN;
}

/* The programs of process("PATH") probes, held until unregistration. */
static void _stp_task_let_go(struct stp_task_probe *tps, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (tps[i].inode)
			iput(tps[i].inode);
		tps[i].inode = NULL;
	}
	kvfree(_stp_task_progs);
	_stp_task_progs = NULL;
}

int _stp_program_inode(const char *path, const struct stp_probe *probe,
		       struct inode **inode)
{
	struct path p;
	int rc;

	*inode = NULL;
	rc = kern_path(path, LOOKUP_FOLLOW, &p);
	if (!rc) {
		*inode = igrab(d_inode(p.dentry));
		path_put(&p);
		if (!*inode)
			rc = -ENOENT;
	}
	if (rc)
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot probe "
				"%s: %s: %s (%d)\n", probe->pp, path,
				rc == -ENOENT ? "no such file" :
				"cannot open the program", rc);
	return rc;
}

static int _stp_task_programs(struct stp_task_probe *tps, int n)
{
	int i, rc;

	for (i = 0; i < n; i++) {
		if (!tps[i].path)
			continue;
		rc = _stp_program_inode(tps[i].path, tps[i].probe,
					&tps[i].inode);
		if (rc)
			return rc;
		if (!_stp_task_is_begin(&tps[i]) && !_stp_task_progs) {
			_stp_task_progs = kvcalloc(STP_TASK_PROGS,
						   sizeof(*_stp_task_progs),
						   GFP_KERNEL);
			if (!_stp_task_progs)
				return -ENOMEM;
		}
	}
	return 0;
}

int _stp_task_probes_register(struct stp_task_probe *tps, int n)
{
	struct stp_tracepoint *t = _stp_task_tps;
	bool begins = false, ends = false, paths = false;
	int i, rc;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		begins |= _stp_task_is_begin(&tps[i]);
		ends |= !_stp_task_is_begin(&tps[i]);
		paths |= !!tps[i].path;
	}
	rc = _stp_task_programs(tps, n);
	if (rc)
		goto out;
	WRITE_ONCE(_stp_task_count, n);
	WRITE_ONCE(_stp_task_table, tps);
	t[0].probe = t[1].probe = t[2].probe = tps[0].probe;
	/* a program's end needs its begin, which fills the table */
	if (begins || _stp_task_progs) {
		/* The table first: a task in it whose first return comes
		 * after the attach begins once, there.  One that starts
		 * and returns in between (microseconds) is missed.
		 */
		rc = _stp_task_olds_take();
		if (!rc)
			rc = _stp_tracepoints_register(&t[0], 1);
		if (rc)
			goto out;
	}
	if (ends) {
		rc = _stp_tracepoints_register(&t[1], 1);
		if (rc)
			goto out;
	}
	if (paths)
		rc = _stp_tracepoints_register(&t[2], 1);
out:
	if (rc)
		_stp_task_probes_unregister(tps, n);
	return rc;
}

void _stp_task_probes_unregister(struct stp_task_probe *tps, int n)
{
	_stp_tracepoints_unregister(_stp_task_tps,
				    ARRAY_SIZE(_stp_task_tps));
	WRITE_ONCE(_stp_task_table, NULL);
	_stp_task_olds_free();
	_stp_task_let_go(tps, n);
}
