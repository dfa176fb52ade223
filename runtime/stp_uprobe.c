/* stp_uprobe.c - registration of the module's uprobes and uretprobes by
 * inode and file offset, the consumers' callbacks, and the filter that
 * keeps them to the target's process tree under -c/-x.
 *
 * The kernel API moved between our kernels; the compile probes of
 * kbuild.c (stapconf.h) say which one this kernel has:
 *   STAPCONF_UPROBE_REGISTER_UPROBE  uprobe_register() takes the
 *       semaphore's offset and returns the uprobe; unregistering is
 *       uprobe_unregister_nosync() for each, then one
 *       uprobe_unregister_sync() (6.12).  Otherwise
 *       uprobe_register_refctr() and a synchronous uprobe_unregister()
 *       (6.1).
 *   STAPCONF_UPROBE_FILTER_MM        filter(self, mm), without the
 *       uprobe_filter_ctx argument.
 *   STAPCONF_UPROBE_HANDLER_DATA     handler and ret_handler take a
 *       __u64 *data last.
 */
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>

#include "stp_session.h"
#include "stp_task.h"
#include "stp_uframe.h"
#include "stp_uprobe.h"

/* ------------------------------------------------------------ filtering */

/* Whether mm runs the program a library probe is limited to. */
static bool _stp_uprobe_exe_is(struct mm_struct *mm, struct inode *inode)
{
	struct file *f;
	bool is;

	rcu_read_lock();
	f = rcu_dereference(mm->exe_file);
	is = f && file_inode(f) == inode;
	rcu_read_unlock();
	return is;
}

/* Whether task t, running mm, may run up's probe: it is in the
 * target's process tree, the process the probe names (process(PID))
 * and runs the program a library probe belongs to.
 */
static bool _stp_uprobe_task_wanted(const struct stp_uprobe *up,
				    struct task_struct *t)
{
	if (up->pid && task_tgid_nr(t) != up->pid)
		return false;
	return _stp_task_in_target(t);
}

static bool _stp_uprobe_wanted(const struct stp_uprobe *up)
{
	if (up->exe_inode &&
	    !(current->mm && _stp_uprobe_exe_is(current->mm, up->exe_inode)))
		return false;
	return _stp_uprobe_task_wanted(up, current);
}

/* The filter of the consumers, asked when a breakpoint would go into an
 * address space: at registration for every process mapping the file
 * (current is staprun then) and at every mmap of it, exec included
 * (current is the task that maps it).  An mm we cannot tie to a task is
 * let in; the handler's own check removes the breakpoint from it at its
 * first hit.
 */
static bool _stp_uprobe_mm_wanted(const struct stp_uprobe *up,
				  struct mm_struct *mm)
{
	bool in = true;
#ifdef CONFIG_MEMCG
	struct task_struct *owner;
#endif

	if (up->exe_inode && !_stp_uprobe_exe_is(mm, up->exe_inode))
		return false;
	if (current->mm == mm)
		return _stp_uprobe_task_wanted(up, current);
#ifdef CONFIG_MEMCG
	rcu_read_lock();
	owner = rcu_dereference(mm->owner);
	if (owner)
		in = _stp_uprobe_task_wanted(up, owner);
	rcu_read_unlock();
#endif
	return in;
}

#ifdef STAPCONF_UPROBE_FILTER_MM
static bool _stp_uprobe_filter(struct uprobe_consumer *uc,
			       struct mm_struct *mm)
{
	return _stp_uprobe_mm_wanted(container_of(uc, struct stp_uprobe, uc),
				     mm);
}
#else
static bool _stp_uprobe_filter(struct uprobe_consumer *uc,
			       enum uprobe_filter_ctx ctx,
			       struct mm_struct *mm)
{
	return _stp_uprobe_mm_wanted(container_of(uc, struct stp_uprobe, uc),
				     mm);
}
#endif

/* A frame of entry values is keyed by its task and the stack pointer
 * its return will have: on x86-64 the entry's sp (the return address's
 * slot) + 8, as the ret has popped the return address by the time the
 * uretprobe runs (both through the int3 trampoline and 6.12's uretprobe
 * syscall, which puts back the sp of the ret).
 */
#define STP_URET_SP(entry_sp) ((entry_sp) + sizeof(long))

/* -------------------------------------------------------- the callbacks */

/* Where the first depth frames return, at the probed function's entry:
 * ra[0] is on top of the stack; deeper levels need the unwinder (the
 * call frame information of the probed file, which the module
 * carries).  Returns the number of levels known.
 */
static int _stp_ucall_returns(struct pt_regs *regs, unsigned long *ra,
			      int depth)
{
	unsigned long pcs[STP_UCALLEE_DEPTH + 1];
	int i, n;

	if (depth == 1) {
		if (_stp_uread(ra, regs->sp, sizeof(*ra)))
			return 0;
		ra[0] = _stp_uret_real(regs->sp, ra[0]);
		return 1;
	}
	n = _stp_ustack_unwind_regs(regs, pcs, depth + 1);
	for (i = 1; i < n; i++)
		ra[i - 1] = pcs[i];
	return n > 0 ? n - 1 : 0;
}

/* Whether path p's levels hold the return addresses ra, which the
 * file's load bias moved from its link-time places.
 */
static bool _stp_upath_match(const struct stp_upath *p,
			     const unsigned long *ra, unsigned long bias)
{
	int i, l = 0;
	bool hit = false;

	for (i = 0; i < p->n; i++) {
		const struct stp_ucall *c = &p->calls[i];

		if (c->level != l) {
			if (!hit)
				return false;
			l = c->level;
			hit = false;
		}
		if (c->pc + bias == ra[l])
			hit = true;
	}
	return hit;
}

/* A .callee probe's filter: whether the function entered at regs was
 * called along one of the probe's paths.  Every place is in the same
 * file as the entry, whose address at run time gives the bias.
 */
static bool _stp_ucalled_via(const struct stp_uprobe *up,
			     struct pt_regs *regs)
{
	unsigned long ra[STP_UCALLEE_DEPTH];
	unsigned long bias = instruction_pointer(regs) - up->entry_pc;
	int i, levels;

#ifdef STAP_CALLEE_MATCHALL
	return true;	/* every call */
#endif
	if (up->depth < 1 || up->depth > STP_UCALLEE_DEPTH)
		return false;
	/* outside a probe's run: per-CPU buffers need the CPU, and the
	 * reads must not fault pages in (no context says they may)
	 */
	preempt_disable();
	pagefault_disable();
	levels = _stp_ucall_returns(regs, ra, up->depth);
	pagefault_enable();
	preempt_enable();
	for (i = 0; i < up->npaths; i++)
		if (up->paths[i].depth <= levels &&
		    _stp_upath_match(&up->paths[i], ra, bias))
			return true;
	return false;
}

/* A hit outside the target's tree (a process forked from one that had
 * the breakpoint, or an mm the filter let in) asks the kernel to take
 * the breakpoint out of this process; the filter agrees.  Nothing but
 * 0 or UPROBE_HANDLER_REMOVE may be returned: the kernel warns on
 * anything else.
 */
static int _stp_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs
#ifdef STAPCONF_UPROBE_HANDLER_DATA
			   , __u64 *data
#endif
			   )
{
	struct stp_uprobe *up = container_of(uc, struct stp_uprobe, uc);

	if (!_stp_uprobe_wanted(up))
		return UPROBE_HANDLER_REMOVE;
	if (up->npaths && !_stp_ucalled_via(up, regs))
		return 0;
	up->handler(up, regs);
	return 0;
}

/* regs->ip is the return address in the caller by now; func, the
 * probed function's entry, is not kept.
 */
static int _stp_uretprobe_hit(struct uprobe_consumer *uc, unsigned long func,
			      struct pt_regs *regs
#ifdef STAPCONF_UPROBE_HANDLER_DATA
			      , __u64 *data
#endif
			      )
{
	struct stp_uprobe *up = container_of(uc, struct stp_uprobe, uc);
	struct stp_uframe *f;

	if (!up->frames) {
		if (_stp_uprobe_wanted(up))
			up->handler(up, regs);
		return 0;
	}
	/* no frame: its entry was skipped (counted) or failed */
	f = _stp_uframe_find(up->frames, current, regs->sp);
	if (!f)
		return 0;
	if (_stp_uprobe_wanted(up) && up->ret_handler)
		up->ret_handler(up, regs, _stp_uframe_data(up->frames, f));
	else if (_stp_uprobe_wanted(up))
		up->handler(up, regs);
	_stp_uframe_done(up->frames, f, false);
	return 0;
}

/* The entry of a .return probe with entry values, on the same consumer
 * (a consumer with both callbacks is how the kernel sees an entry and
 * its return): the values go into a frame for the return.
 */
static int _stp_uretprobe_entry_hit(struct uprobe_consumer *uc,
				    struct pt_regs *regs
#ifdef STAPCONF_UPROBE_HANDLER_DATA
				    , __u64 *data
#endif
				    )
{
	struct stp_uprobe *up = container_of(uc, struct stp_uprobe, uc);
	struct stp_uframe *f;

	if (!_stp_uprobe_wanted(up))
		return UPROBE_HANDLER_REMOVE;
	/* a call from elsewhere: no frame, its return does not run */
	if (up->npaths && !_stp_ucalled_via(up, regs))
		return 0;
	f = _stp_uframe_claim(up->frames, current, STP_URET_SP(regs->sp));
	if (!f) {
		_stp_probe_skipped_why(STP_SKIP_OTHER);
		return 0;
	}
	_stp_uframe_done(up->frames, f, !up->entry_handler ||
			 !up->entry_handler(up, regs,
					    _stp_uframe_data(up->frames, f)));
	return 0;
}

/* ------------------------------------------------------- registration */

static const char *_stp_uprobe_why(int rc)
{
	switch (rc) {
	case -ENOENT:
	case -ENOTDIR:
		return "no such file";
	case -EACCES:
		return "permission denied";
	case -EINVAL:
		return "the offset is past the end of the file, or the file "
		       "or semaphore offset cannot be probed";
	case -EIO:
		return "the file system does not allow probing the file";
	case -ENOTSUPP:
	case -EOPNOTSUPP:
		return "the instruction there cannot be probed";
	case -ENOSYS:
		return "the kernel has no uprobes (CONFIG_UPROBES)";
	case -EEXIST:
		return "a probe at this offset uses another USDT semaphore";
	case -ENOMEM:
		return "out of memory";
	default:
		return "registration failed";
	}
}

static void _stp_uprobe_report(const struct stp_uprobe *up, int rc,
			       bool fatal)
{
	_stp_ctl_printf(fatal ? STP_MSG_ERROR : STP_MSG_WARNING, false,
			"%s: cannot probe %s: %s at offset 0x%lx%s: %s (%d)\n",
			fatal ? "ERROR" : "WARNING", up->probe->pp, up->path,
			up->offset, up->ret ? " (return)" : "",
			_stp_uprobe_why(rc), rc);
}

/* The file's inode, held until unregistration. */
static int _stp_uprobe_inode(struct stp_uprobe *up)
{
	struct path path;
	struct inode *inode;
	int rc;

	rc = kern_path(up->path, LOOKUP_FOLLOW, &path);
	if (rc)
		return rc;
	inode = d_inode(path.dentry);
	if (!S_ISREG(inode->i_mode))
		rc = -EINVAL;
	else if (up->offset >= (unsigned long)i_size_read(inode) ||
		 up->sdt_sem >= (unsigned long)i_size_read(inode))
		rc = -EINVAL;
	else
		up->inode = igrab(inode);
	path_put(&path);
	if (!rc && !up->inode)
		rc = -ENOENT;
	return rc;
}

/* The inode of the program a library probe is limited to. */
static int _stp_uprobe_exe_inode(struct stp_uprobe *up)
{
	struct path path;
	int rc;

	if (!up->exe)
		return 0;
	rc = kern_path(up->exe, LOOKUP_FOLLOW, &path);
	if (rc)
		return rc;
	up->exe_inode = igrab(d_inode(path.dentry));
	path_put(&path);
	return up->exe_inode ? 0 : -ENOENT;
}

/* What a probe holds while registered: its files and its frames. */
static void _stp_uprobe_let_go(struct stp_uprobe *up)
{
	if (up->inode)
		iput(up->inode);
	up->inode = NULL;
	if (up->exe_inode)
		iput(up->exe_inode);
	up->exe_inode = NULL;
	_stp_uframes_free(up->frames);
	up->frames = NULL;
}

static int _stp_uprobe_register_one(struct stp_uprobe *up)
{
	int rc;

	memset(&up->uc, 0, sizeof(up->uc));
	if (up->ret)
		up->uc.ret_handler = _stp_uretprobe_hit;
	else
		up->uc.handler = _stp_uprobe_hit;
	if (up->ret && (up->data_size || up->npaths)) {
		up->frames = _stp_uframes_new(up->data_size);
		if (!up->frames)
			return -ENOMEM;
		up->uc.handler = _stp_uretprobe_entry_hit;
	}
	if (_stp_target_pid() || up->pid || up->exe)
		up->uc.filter = _stp_uprobe_filter;
	rc = _stp_uprobe_inode(up);
	if (!rc)
		rc = _stp_uprobe_exe_inode(up);
	if (rc) {
		_stp_uprobe_let_go(up);
		return rc;
	}
#ifdef STAPCONF_UPROBE_REGISTER_UPROBE
	up->uprobe = uprobe_register(up->inode, up->offset, up->sdt_sem,
				     &up->uc);
	rc = IS_ERR(up->uprobe) ? PTR_ERR(up->uprobe) : 0;
	if (rc)
		up->uprobe = NULL;
#else
	rc = uprobe_register_refctr(up->inode, up->offset, up->sdt_sem,
				    &up->uc);
#endif
	if (rc) {
		_stp_uprobe_let_go(up);
		return rc;
	}
	up->registered = true;
	return 0;
}

int _stp_uprobes_register(struct stp_uprobe *ups, int n)
{
	int i, rc, ok = 0, first_rc = 0, first = -1;

	for (i = 0; i < n; i++) {
		/* staprun told to stop (stp_session.h) */
		if (_stp_start_interrupted()) {
			_stp_uprobes_unregister(ups, i);
			return -EINTR;
		}
		rc = _stp_uprobe_register_one(&ups[i]);
		if (!rc) {
			ok++;
			continue;
		}
		if (ups[i].must) {
			_stp_uprobe_report(&ups[i], rc, true);
			_stp_uprobes_unregister(ups, i);
			return rc;
		}
		if (first < 0) {
			first = i;
			first_rc = rc;
		}
	}
	if (n && !ok) {
		_stp_uprobe_report(&ups[first], first_rc, true);
		return first_rc;
	}
	return 0;
}

/* 6.1 waits for the running handlers in each uprobe_unregister(); the
 * newer API waits once for all of them.  Either way the consumers are
 * gone from the kernel's lists, and no handler runs, on return.
 */
#ifdef STAPCONF_UPROBE_REGISTER_UPROBE
static void _stp_uprobes_detach(struct stp_uprobe *ups, int n)
{
	bool any = false;
	int i;

	for (i = 0; i < n; i++) {
		if (!ups[i].registered)
			continue;
		uprobe_unregister_nosync(ups[i].uprobe, &ups[i].uc);
		any = true;
	}
	if (any)
		uprobe_unregister_sync();
}
#else
static void _stp_uprobes_detach(struct stp_uprobe *ups, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (ups[i].registered)
			uprobe_unregister(ups[i].inode, ups[i].offset,
					  &ups[i].uc);
}
#endif

void _stp_uprobes_unregister(struct stp_uprobe *ups, int n)
{
	int i;

	_stp_uprobes_detach(ups, n);
	for (i = 0; i < n; i++) {
		if (!ups[i].registered)
			continue;
		ups[i].registered = false;
		ups[i].uprobe = NULL;
		_stp_uprobe_let_go(&ups[i]);
	}
}
