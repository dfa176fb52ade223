/* stp_kentry.h - a register's value at a kernel function's entry, kept
 * per task for the probes further in that read a variable DWARF gives
 * only as that value (DW_OP_entry_value): a kprobe on the entry puts
 * it, the probe inside the function gets it back.
 */
#ifndef STP_KENTRY_H
#define STP_KENTRY_H

#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#define STP_KENTRY_BITS 7
#define STP_KENTRY_SLOTS (1 << STP_KENTRY_BITS)

struct stp_kentry_slot {
	struct task_struct *task;
	unsigned long val;
};

/* Open addressing on the task pointer; when every slot is taken, the
 * task's own slot is reused (another task loses its value, and its
 * probe reports it as unknown rather than reading a wrong one).  The
 * lock is only taken in kprobe handlers (the x86 int3 handler counts as
 * an NMI, so in_nmi() cannot tell): a kprobe hit while one runs on the
 * CPU is skipped by kprobes, so the lock never nests on a CPU.
 */
struct stp_kentry {
	raw_spinlock_t lock;
	struct stp_kentry_slot slot[STP_KENTRY_SLOTS];
};

#define STP_KENTRY_INIT(name) \
	{ .lock = __RAW_SPIN_LOCK_UNLOCKED(name.lock) }

static inline void _stp_kentry_put(struct stp_kentry *e, unsigned long val)
{
	unsigned int h = hash_ptr(current, STP_KENTRY_BITS), i, at = h;
	unsigned long flags;

	raw_spin_lock_irqsave(&e->lock, flags);
	for (i = 0; i < STP_KENTRY_SLOTS; i++) {
		unsigned int j = (h + i) & (STP_KENTRY_SLOTS - 1);

		if (e->slot[j].task == current || !e->slot[j].task) {
			at = j;
			break;
		}
	}
	e->slot[at].task = current;
	e->slot[at].val = val;
	raw_spin_unlock_irqrestore(&e->lock, flags);
}

/* 0 and the value the current task entered with, or -ENOENT: it entered
 * the function before the probes were armed (or lost its slot).
 * A recursive call's entry replaces the outer one's value.
 */
static inline int _stp_kentry_get(struct stp_kentry *e, u64 *val)
{
	unsigned int h = hash_ptr(current, STP_KENTRY_BITS), i;
	unsigned long flags;
	int rc = -ENOENT;

	raw_spin_lock_irqsave(&e->lock, flags);
	for (i = 0; i < STP_KENTRY_SLOTS; i++) {
		unsigned int j = (h + i) & (STP_KENTRY_SLOTS - 1);

		if (!e->slot[j].task)
			break;
		if (e->slot[j].task == current) {
			*val = e->slot[j].val;
			rc = 0;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&e->lock, flags);
	return rc;
}

#endif
