/* stp_syscall.c - the module's one sys_enter and one sys_exit callback:
 * each looks the system call's number up in the translator's table and
 * runs the probes on it.  A compat (32-bit) task's numbers belong to
 * another table, the native table's compat one, with the arguments in
 * the i386 registers (syscall_get_arguments() reads them so); the
 * process.syscall probes see native calls only.
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/sched/mm.h>
#include <asm/syscall.h>

#include "stp_uframe.h"

static struct stp_syscall_table *_stp_sc_enter;
static struct stp_syscall_table *_stp_sc_exit;
static struct stp_tracepoint _stp_sc_tps[2];
static int _stp_sc_ntps;

/* A .return probe's entry part (sp->save), or its return part: the
 * frame of values saved at entry, by task (a task is in one system
 * call at a time, so an older frame of its own never returned: exit,
 * or a probe started in the middle of the call).
 */
static noinline void _stp_sc_framed(const struct stp_syscall_probe *sp,
				    const u64 *args)
{
	struct stp_uframes *fs = *sp->frames;
	struct stp_uframe *f;
	int rc;

	if (sp->save) {
		f = _stp_uframe_claim(fs, current, 0);
		if (!f) {
			_stp_probe_skipped_why(STP_SKIP_OTHER);
			return;
		}
		rc = __stp_probe_run_w(sp->probe, sp->probe->handler, NULL,
				       NULL, args, STAP_SESSION_RUNNING,
				       sp->run_flags & STP_RUN_PRINT, 1,
				       _stp_uframe_data(fs, f));
		_stp_uframe_done(fs, f, !rc);
		return;
	}
	f = _stp_uframe_find(fs, current, 0);
	if (!f)
		return;
	__stp_probe_run_w(sp->probe, sp->probe->handler, NULL, NULL, args,
			  STAP_SESSION_RUNNING,
			  sp->run_flags & STP_RUN_PRINT, 1,
			  _stp_uframe_data(fs, f));
	_stp_uframe_done(fs, f, false);
}

static __always_inline void _stp_sc_one(const struct stp_syscall_probe *sp,
					const u64 *args)
{
	if (unlikely(sp->frames)) {
		_stp_sc_framed(sp, args);
		return;
	}
	/* a lean handler reads no value, not even when sampled */
	if (sp->lean)
		__stp_probe_run_lean(sp->probe, sp->lean, NULL, NULL, args,
				     STAP_SESSION_RUNNING, false);
	else
		__stp_probe_run_flags(sp->probe, sp->probe->handler, NULL,
				      NULL, args, STAP_SESSION_RUNNING,
				      sp->run_flags);
}

/* Whether current is one of the processes a process.syscall probe
 * names: a user task, in the target's tree, the process, running the
 * program.
 */
static bool _stp_sc_wanted(const struct stp_syscall_probe *sp)
{
	struct mm_struct *mm = current->mm;
	struct file *f;
	bool is;

	if (!mm || (current->flags & (PF_KTHREAD | PF_IO_WORKER)))
		return false;
	if (sp->pid && task_tgid_nr(current) != sp->pid)
		return false;
	if (sp->inode) {
		rcu_read_lock();
		f = rcu_dereference(mm->exe_file);
		is = f && file_inode(f) == sp->inode;
		rcu_read_unlock();
		if (!is)
			return false;
	}
	return _stp_task_in_target(current);
}

static void _stp_sc_run_all(const struct stp_syscall_table *t,
			    struct pt_regs *regs, long nr, long ret)
{
	unsigned long a[6];
	u64 args[STP_SC_NARGS];
	int i;

	if (in_compat_syscall())
		return;
	syscall_get_arguments(current, regs, a);
	args[0] = (u64)nr;
	for (i = 0; i < 6; i++)
		args[i + 1] = a[i];
	args[7] = (u64)ret;
	for (i = 0; i < t->nall; i++)
		if (_stp_sc_wanted(&t->all[i]))
			_stp_sc_one(&t->all[i], args);
}

static __always_inline void _stp_sc_run(const struct stp_syscall_table *t,
					struct pt_regs *regs, long nr,
					long ret)
{
	unsigned long a[6];
	u64 args[STP_SC_NARGS];
	unsigned int i, end;

	if (unlikely(t->nall) && nr >= 0)
		_stp_sc_run_all(t, regs, nr, ret);
	if (unlikely(in_compat_syscall())) {
		t = t->compat;
		if (!t)
			return;
	}
	if ((unsigned long)nr >= (unsigned long)t->nr)
		return;
	i = t->first[nr];
	end = t->first[nr + 1];
	if (likely(i == end))
		return;
	/* the registers the task entered with, as the ABI names them */
	syscall_get_arguments(current, regs, a);
	args[0] = (u64)nr;
	args[1] = a[0];
	args[2] = a[1];
	args[3] = a[2];
	args[4] = a[3];
	args[5] = a[4];
	args[6] = a[5];
	args[7] = (u64)ret;
	for (; i < end; i++)
		_stp_sc_one(&t->probes[i], args);
}

static void _stp_sys_enter(void *data, struct pt_regs *regs, long id)
{
	_stp_sc_run(_stp_sc_enter, regs, id, 0);
}

static void _stp_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	_stp_sc_run(_stp_sc_exit, regs, syscall_get_nr(current, regs), ret);
}

static void _stp_sc_add(const struct stp_syscall_table *t, const char *name,
			void *fn)
{
	struct stp_tracepoint *tp = &_stp_sc_tps[_stp_sc_ntps++];

	memset(tp, 0, sizeof(*tp));
	tp->name = name;
	if (!t->probes && !t->all)
		t = t->compat;
	tp->probe = t->probes ? t->probes[0].probe : t->all[0].probe;
	tp->fn = fn;
}

/* The programs of process("PATH").syscall probes, held while attached. */
static void _stp_sc_let_go(struct stp_syscall_table *t)
{
	int i;

	for (i = 0; t && i < t->nall; i++) {
		if (t->all[i].inode)
			iput(t->all[i].inode);
		t->all[i].inode = NULL;
	}
}

static int _stp_sc_programs(struct stp_syscall_table *t)
{
	struct stp_syscall_probe *sp;
	int i, rc;

	for (i = 0; t && i < t->nall; i++) {
		sp = &t->all[i];
		if (!sp->path)
			continue;
		rc = _stp_program_inode(sp->path, sp->probe, &sp->inode);
		if (rc)
			return rc;
	}
	return 0;
}

/* The frames of the .return probes that save values at entry, through
 * their rows in the entry table (may sleep).
 */
static void _stp_sc_frames_free(const struct stp_syscall_table *t)
{
	const struct stp_syscall_probe *sp;
	int i;

	for (i = 0; t && i < t->nprobes + t->nall; i++) {
		sp = i < t->nprobes ? &t->probes[i] : &t->all[i - t->nprobes];
		if (sp->save) {
			_stp_uframes_free(*sp->frames);
			*sp->frames = NULL;
		}
	}
	if (t && t->compat)
		_stp_sc_frames_free(t->compat);
}

static int _stp_sc_frames_new(const struct stp_syscall_table *t)
{
	const struct stp_syscall_probe *sp;
	int i;

	for (i = 0; t && i < t->nprobes + t->nall; i++) {
		sp = i < t->nprobes ? &t->probes[i] : &t->all[i - t->nprobes];
		if (sp->save && !(*sp->frames = _stp_uframes_new(sp->data_size)))
			return -ENOMEM;
	}
	return t && t->compat ? _stp_sc_frames_new(t->compat) : 0;
}

void _stp_sc_set_arg(struct context *c, int n, u64 v)
{
	struct pt_regs *regs = task_pt_regs(current);
	/* a 32-bit task's call: the i386 ABI's registers, as
	 * syscall_get_arguments() reads them
	 */
	bool ia32 = in_compat_syscall();
	unsigned long *r;

	switch (n) {
	case 1: r = ia32 ? &regs->bx : &regs->di; break;
	case 2: r = ia32 ? &regs->cx : &regs->si; break;
	case 3: r = &regs->dx; break;
	case 4: r = ia32 ? &regs->si : &regs->r10; break;
	case 5: r = ia32 ? &regs->di : &regs->r8; break;
	case 6: r = ia32 ? &regs->bp : &regs->r9; break;
	case 7: r = &regs->ax; break;
	default: return;
	}
	*r = v;
	/* the hit's copy, which the probes after this one read */
	((u64 *)c->targs)[n] = v;
}

int _stp_syscalls_register(struct stp_syscall_table *enter,
			   struct stp_syscall_table *exit)
{
	int rc;

	_stp_sc_enter = enter;
	_stp_sc_exit = exit;
	_stp_sc_ntps = 0;
	rc = _stp_sc_frames_new(enter);
	if (!rc)
		rc = _stp_sc_programs(enter);
	if (!rc)
		rc = _stp_sc_programs(exit);
	if (rc)
		goto fail;
	if (enter)
		_stp_sc_add(enter, "sys_enter", _stp_sys_enter);
	if (exit)
		_stp_sc_add(exit, "sys_exit", _stp_sys_exit);
	rc = _stp_tracepoints_register(_stp_sc_tps, _stp_sc_ntps);
	if (!rc)
		return 0;
fail:
	_stp_sc_ntps = 0;
	_stp_sc_let_go(enter);
	_stp_sc_let_go(exit);
	_stp_sc_frames_free(enter);
	return rc;
}

void _stp_syscalls_unregister(void)
{
	/* waits for the callbacks in flight (tracepoint_synchronize_
	 * unregister) before the tables can go with the module
	 */
	_stp_tracepoints_unregister(_stp_sc_tps, _stp_sc_ntps);
	_stp_sc_ntps = 0;
	_stp_sc_let_go(_stp_sc_enter);
	_stp_sc_let_go(_stp_sc_exit);
	_stp_sc_frames_free(_stp_sc_enter);
}
