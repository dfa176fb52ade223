/* stp_usym.c - user addresses as symbols, through the mapping of the
 * current process that holds them and the tables of stp_usym.h, and
 * the user call chain by call frame information and frame pointers.
 * Probe context: no sleeping (the mmap lock is only tried), no
 * allocation, fault-safe reads.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/dcache.h>
#include <linux/namei.h>
#include <linux/uprobes.h>
#include "stp_usym.h"

#define _STP_UPATH_MAX 256

/* Where an address of a process lies: the object and the file offset. */
struct _stp_umap {
	const struct stp_uobj *obj;	/* NULL: a file the module does
					 * not know */
	const char *path;		/* the mapped file */
	unsigned long offset;		/* in the file */
};

static DEFINE_PER_CPU(char[_STP_UPATH_MAX], _stp_upath);

/* The inodes of the script's objects (stp_script.uobj_inodes) are held
 * from START to the end of the probes: a mapping is matched to an
 * object by its file's inode, which needs no lock.  At START (may
 * sleep): an object that is not there is simply never matched.
 */
static void _stp_usyms_start(void)
{
	struct inode **inodes = stp_script.uobj_inodes;
	struct path p;
	unsigned int i;

	for (i = 0; i < stp_script.nuobjs; i++) {
		if (kern_path(stp_script.uobjs[i].path, LOOKUP_FOLLOW, &p))
			continue;
		inodes[i] = d_inode(p.dentry);
		ihold(inodes[i]);
		path_put(&p);
	}
}

/* Once no probe handler runs any more. */
static void _stp_usyms_stop(void)
{
	struct inode **inodes = stp_script.uobj_inodes;
	unsigned int i;

	for (i = 0; i < stp_script.nuobjs; i++) {
		if (inodes[i])
			iput(inodes[i]);
		inodes[i] = NULL;
	}
}

/* The path of a file the module has no table for, from its mount's
 * root, into this CPU's buffer; NULL while a rename is in progress
 * (on this CPU it could never finish while we wait for it).
 */
static const char *_stp_ufile_path(struct file *f)
{
	char *buf = *this_cpu_ptr(&_stp_upath), *p;

	if (raw_read_seqcount(&rename_lock.seqcount) & 1)
		return NULL;
	p = dentry_path_raw(f->f_path.dentry, buf, _STP_UPATH_MAX);
	return IS_ERR(p) ? NULL : p;
}

/* The file mapping of task's that holds addr.  -EBUSY when the mapping
 * lock is taken (the lookup never waits) or in NMI context, -ENOENT
 * when no file maps addr.
 */
static int _stp_umap_find(struct task_struct *task, unsigned long addr,
			  struct _stp_umap *m)
{
	struct mm_struct *mm = task->mm;
	struct vm_area_struct *vma;
	struct inode *inode;
	unsigned int i;
	int rc = -ENOENT;

	if (!mm || (task->flags & PF_KTHREAD))
		return -ENOENT;
	if (in_nmi() || !mmap_read_trylock(mm))
		return -EBUSY;
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_file) {
		m->offset = addr - vma->vm_start +
			    (vma->vm_pgoff << PAGE_SHIFT);
		m->obj = NULL;
		m->path = NULL;
		inode = file_inode(vma->vm_file);
		for (i = 0; i < stp_script.nuobjs; i++) {
			if (stp_script.uobj_inodes[i] == inode) {
				m->obj = &stp_script.uobjs[i];
				m->path = m->obj->path;
				break;
			}
		}
		if (!m->path)
			m->path = _stp_ufile_path(vma->vm_file);
		if (m->path)
			rc = 0;
	}
	mmap_read_unlock(mm);
	return rc;
}

/* The function of o that holds file offset off, or NULL. */
static const struct stp_usym *_stp_usym_at(const struct stp_uobj *o,
					   unsigned long off)
{
	unsigned int lo = 0, hi = o->nsyms, mid;
	const struct stp_usym *s;

	while (lo < hi) {	/* first symbol past off */
		mid = lo + (hi - lo) / 2;
		if (o->syms[mid].offset <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &o->syms[lo - 1];
	if (s->size && off - s->offset >= s->size)
		return NULL;
	return s;
}

static int _stp_usym_lookup(unsigned long addr, struct task_struct *task,
			    struct _stp_sym *sym)
{
	struct _stp_umap m;
	const struct stp_usym *s;

	if (_stp_umap_find(task, addr, &m))
		return -ENOENT;
	sym->module = m.path;
	s = m.obj ? _stp_usym_at(m.obj, m.offset) : NULL;
	if (s) {
		sym->name = s->name;
		sym->offset = m.offset - s->offset;
		sym->size = s->size;
	} else {
		sym->offset = m.offset;	/* in the file */
	}
	return 0;
}

/* Whether addr is in an executable mapping of current; true when that
 * cannot be told without waiting.
 */
static bool _stp_uaddr_exec(unsigned long addr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool exec;

	if (!mm)
		return false;
	if (in_nmi() || !mmap_read_trylock(mm))
		return true;
	vma = vma_lookup(mm, addr);
	exec = vma && (vma->vm_flags & VM_EXEC);
	mmap_read_unlock(mm);
	return exec;
}

/* The CFI row of o that covers file offset off, or NULL. */
static const struct stp_ucfi *_stp_ucfi_at(const struct stp_uobj *o,
					   unsigned long off)
{
	unsigned int lo = 0, hi = o->ncfi, mid;
	const struct stp_ucfi *r;

	while (lo < hi) {	/* first row past off */
		mid = lo + (hi - lo) / 2;
		if (o->cfi[mid].offset <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	r = &o->cfi[lo - 1];
	return off - r->offset < r->len ? r : NULL;
}

/* One frame of a user stack being walked. */
struct _stp_uframe_regs {
	unsigned long pc, sp, bp;
};

/* A return address read from the stack at slot: where a .return probe
 * of a function still running put the uretprobe trampoline, the
 * address the kernel keeps for the real return (current's own list,
 * which only current changes).
 */
static unsigned long _stp_uret_real(unsigned long slot, unsigned long ret)
{
#ifdef CONFIG_UPROBES
	struct uprobe_task *ut = current->utask;
	struct return_instance *ri;
	int depth = 0;

	if (!ut)
		return ret;
	for (ri = ut->return_instances; ri && depth < 64;
	     ri = ri->next, depth++)
		if (ri->stack == slot)
			return ri->orig_ret_vaddr;
#endif
	return ret;
}

/* Step f to its caller's frame by the call frame information of the
 * code at lookup (the pc, or just before a return address): 0, or
 * -ENOENT when the module has none for it, -EFAULT when the stack
 * cannot be read.
 */
static int _stp_ucfi_step(struct _stp_uframe_regs *f, unsigned long lookup)
{
	struct _stp_umap m;
	const struct stp_ucfi *r;
	unsigned long cfa, ra, bp = f->bp;

	if (_stp_umap_find(current, lookup, &m) || !m.obj)
		return -ENOENT;
	r = _stp_ucfi_at(m.obj, m.offset);
	if (!r)
		return -ENOENT;
	cfa = (r->cfa_reg == 7 ? f->sp : f->bp) + r->cfa_off;
	if (_stp_uread(&ra, cfa - sizeof(long), sizeof(ra)))
		return -EFAULT;
	ra = _stp_uret_real(cfa - sizeof(long), ra);
	if (r->bp_off && _stp_uread(&bp, cfa + r->bp_off, sizeof(bp)))
		return -EFAULT;
	f->pc = ra;
	f->sp = cfa;
	f->bp = bp;
	return 0;
}

/* The same by the frame-pointer chain: the frame holds the caller's
 * frame pointer with the return address above it.
 */
static int _stp_ufp_step(struct _stp_uframe_regs *f)
{
	unsigned long frame[2];

	if ((f->bp & (sizeof(long) - 1)) || f->bp < f->sp ||
	    _stp_uread(frame, f->bp, sizeof(frame)))
		return -EFAULT;
	f->pc = _stp_uret_real(f->bp + sizeof(long), frame[1]);
	f->sp = f->bp + sizeof(frame);
	f->bp = frame[0];
	return 0;
}

/* Whether pc is the first instruction of a known function: its frame
 * is not set up yet, the return address is on top of the stack.
 */
static bool _stp_upc_at_entry(unsigned long pc)
{
	struct _stp_sym sym = { 0 };

	return !_stp_usym_lookup(pc, current, &sym) && sym.name &&
	       sym.offset == 0;
}

/* The user call chain: each frame by the call frame information of the
 * object its code is in (probed objects, -d, --ldd), falling back to
 * the frame-pointer chain where the module has none (at a function's
 * first instruction, the return address is on top of the stack and the
 * frame pointer still the caller's).  Code without either ends the
 * chain, as does a return address that is not code; the walk only goes
 * up the stack.
 */
static int _stp_ustack_unwind_regs(struct pt_regs *regs, unsigned long *pcs,
				   int max)
{
	struct _stp_uframe_regs f;
	unsigned long ret, sp;
	int n = 0, rc;

	if (!regs || max <= 0)
		return 0;
	f.pc = instruction_pointer(regs);
	f.sp = regs->sp;
	f.bp = regs->bp;
	pcs[n++] = f.pc;
	while (n < max) {
		sp = f.sp;
		rc = _stp_ucfi_step(&f, n == 1 ? f.pc : f.pc - 1);
		if (rc == -ENOENT && n == 1 && _stp_upc_at_entry(f.pc) &&
		    !_stp_uread(&ret, f.sp, sizeof(ret))) {
			f.pc = _stp_uret_real(f.sp, ret);
			f.sp += sizeof(ret);
			rc = 0;
		} else if (rc == -ENOENT) {
			rc = _stp_ufp_step(&f);
		}
		if (rc || !f.pc || f.sp <= sp || !_stp_uaddr_exec(f.pc))
			break;
		pcs[n++] = f.pc;
	}
	return n;
}

static int _stp_ustack_unwind(struct context *c, unsigned long *pcs, int max)
{
	return _stp_ustack_unwind_regs(_stp_user_regs(c), pcs, max);
}
