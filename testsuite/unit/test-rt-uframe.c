/* test-rt-uframe.c - unit tests for runtime/stp_uframe.c, the frames
 * of user-space .return probes with entry values, on a table of 4:
 * recursion, threads, frames abandoned by a longjmp, a full table, and
 * the frames of a task that exited.
 */
#include "kshim.h"

#include <sys/types.h>

/* ---- what stp_uframe.c takes from the kernel, for the host */
#define ALIGN(x, a)	(((x) + (a) - 1) / (a) * (a))
typedef int raw_spinlock_t;
#define raw_spin_lock_init(l)	(*(l) = 0)
#define raw_spin_lock(l)	((*(l))++)
#define raw_spin_unlock(l)	((*(l))--)
#define rcu_read_lock()		do { } while (0)
#define rcu_read_unlock()	do { } while (0)
#define PIDTYPE_PID		0

struct task_struct {
	pid_t pid;
	bool alive;
};
struct pid_namespace {
	int unused;
};

static struct pid_namespace init_pid_ns;
static struct task_struct tasks[3] = {
	{ 100, true }, { 101, true }, { 102, true },
};

static inline pid_t task_pid_nr(struct task_struct *t)
{
	return t->pid;
}

/* The pid's task while it lives; a pid stands for itself. */
static inline void *find_pid_ns(pid_t nr, struct pid_namespace *ns)
{
	(void)ns;
	return (void *)(long)nr;
}

static inline struct task_struct *pid_task(void *pid, int type)
{
	size_t i;

	(void)type;
	for (i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		if (tasks[i].alive && tasks[i].pid == (pid_t)(long)pid)
			return &tasks[i];
	return NULL;
}

#define MAXURETPROBE_FRAMES 4
#include "stp_uframe.c"

#include "tap.h"

static struct task_struct *const a = &tasks[0], *const b = &tasks[1];

/* An entry of t at sp saving v; false when it found no frame. */
static bool enter(struct stp_uframes *fs, struct task_struct *t,
		  unsigned long sp, long v)
{
	struct stp_uframe *f = _stp_uframe_claim(fs, t, sp);

	if (!f)
		return false;
	*(long *)_stp_uframe_data(fs, f) = v;
	_stp_uframe_done(fs, f, true);
	return true;
}

/* The return of t at sp: the value its entry saved, or -1. */
static long leave(struct stp_uframes *fs, struct task_struct *t,
		  unsigned long sp)
{
	struct stp_uframe *f = _stp_uframe_find(fs, t, sp);
	long v;

	if (!f)
		return -1;
	v = *(long *)_stp_uframe_data(fs, f);
	_stp_uframe_done(fs, f, false);
	return v;
}

static void test_recursion(struct stp_uframes *fs)
{
	bool ok = enter(fs, a, 0x1000, 1) && enter(fs, a, 0xfe0, 2) &&
		  enter(fs, b, 0x1000, 10) && enter(fs, a, 0xfc0, 3);

	tap_ok(ok, "recursion: three frames of a task and one of another");
	tap_int_eq(leave(fs, a, 0xfc0), 3, "recursion: innermost first");
	tap_int_eq(leave(fs, b, 0x1000), 10, "threads: each its own");
	tap_int_eq(leave(fs, a, 0xfe0), 2, "recursion: then its caller");
	tap_int_eq(leave(fs, a, 0x1000), 1, "recursion: then the outermost");
	tap_int_eq(leave(fs, a, 0x1000), -1, "a return has one frame only");
}

static void test_failed_entry(struct stp_uframes *fs)
{
	struct stp_uframe *f = _stp_uframe_claim(fs, a, 0x1000);

	tap_ok(f != NULL, "failed entry: a frame");
	_stp_uframe_done(fs, f, false);
	tap_int_eq(leave(fs, a, 0x1000), -1, "failed entry: no return");
}

static void test_longjmp(struct stp_uframes *fs)
{
	int i;
	bool ok = true;

	/* four frames abandoned, three times over, from the same caller */
	for (i = 0; i < 3; i++)
		ok = ok && enter(fs, a, 0x1000, 1) && enter(fs, a, 0xfe0, 2) &&
		     enter(fs, a, 0xfc0, 3) && enter(fs, a, 0xfa0, 4);
	tap_ok(ok, "longjmp: an entry at or above abandoned frames takes "
	       "them back");
	/* a longjmp from 0xfa0 to the frame at 0xfe0, which returns */
	tap_int_eq(leave(fs, a, 0xfe0), 2, "longjmp: the frame returned to "
		   "has its value");
	ok = enter(fs, b, 0x2000, 20) && enter(fs, b, 0x1fe0, 21) &&
	     enter(fs, b, 0x1fc0, 22);
	tap_ok(ok, "longjmp: the frames below a return are taken back");
	tap_int_eq(leave(fs, a, 0x1000), 1, "longjmp: the outer frame is "
		   "kept");
	tap_int_eq(leave(fs, b, 0x1fc0), 22, "b: 22");
	tap_int_eq(leave(fs, b, 0x1fe0), 21, "b: 21");
	tap_int_eq(leave(fs, b, 0x2000), 20, "b: 20");
}

static void test_full(struct stp_uframes *fs)
{
	bool ok = enter(fs, a, 0x1000, 1) && enter(fs, a, 0xfe0, 2) &&
		  enter(fs, b, 0x1000, 10) && enter(fs, b, 0xfe0, 11);

	tap_ok(ok, "full: four frames in flight");
	tap_ok(!enter(fs, a, 0xfc0, 3), "full: the fifth is refused");
	tap_int_eq(leave(fs, a, 0xfc0), -1, "full: and has no return");
	b->alive = false;
	tap_ok(enter(fs, a, 0xfc0, 3), "full: a frame of an exited task is "
	       "taken");
	tap_ok(enter(fs, &tasks[2], 0x3000, 30), "full: and its other one");
	tap_ok(!enter(fs, &tasks[2], 0x2fe0, 31), "full again");
	tap_int_eq(leave(fs, &tasks[2], 0x3000), 30, "c: 30");
	tap_int_eq(leave(fs, a, 0xfc0), 3, "a: 3");
	tap_int_eq(leave(fs, a, 0xfe0), 2, "a: 2");
	tap_int_eq(leave(fs, a, 0x1000), 1, "a: 1");
	b->alive = true;
}

int main(void)
{
	struct stp_uframes *fs = _stp_uframes_new(sizeof(long));

	if (!tap_ok(fs != NULL, "a table of 4 frames"))
		return tap_done();
	test_recursion(fs);
	test_failed_entry(fs);
	test_longjmp(fs);
	test_full(fs);
	tap_int_eq(fs->lock, 0, "the lock is balanced");
	_stp_uframes_free(fs);
	_stp_uframes_free(NULL);
	return tap_done();
}
