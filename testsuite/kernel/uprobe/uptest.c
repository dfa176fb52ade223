// SPDX-License-Identifier: GPL-2.0
/*
 * uptest.c - the uprobe test module: the runtime's stp_uprobe table, as
 * generated code would fill it in, on uptarget (test.sh gives the file
 * and its offsets as module parameters): an entry probe on _start, an
 * entry and a return probe on work(), and one on mark() with a USDT
 * semaphore; and the process and thread events of stp_task.c, counted
 * for uptarget's tasks.  The handlers print what they read from user
 * space and where they run; the end probe prints the hit counts.
 */
#include "stp_runtime_pre.h"
#include "tapset-api.h"
#include "stp_probe.h"
#include "stp_session.h"
#include "stp_print.h"
#include "stp_transport.h"
#include "stp_tracepoint.h"
#include "stp_uprobe.h"
#include "stp_task.h"
#include "stp_probe_inline.h"

/* The runtime, as stp_core.c builds it for a generated module. */
#include "stp_probe.c"
#include "stp_usym.c"
#include "stp_mem.c"
#include "stp_session.c"
#include "stp_tracepoint.c"
#include "stp_uframe.c"
#include "stp_uprobe.c"
#include "stp_task.c"
#include "stp_ctl.c"
#include "stp_transport.c"
#include "stp_monitor.c"
#include "stp_print.c"
#include "stp_vsprintf.c"
#include "stp_main.c"

const char stp_module_name[] = "uptest";
const struct stp_script stp_script = {
	.context_size = sizeof(struct context),
	.maxstringlen = MAXSTRINGLEN,
	.maxnesting = MAXNESTING,
};

static char path[256];
module_param_string(path, path, sizeof(path), 0);
static unsigned long off_start, off_work, off_mark, off_sem;
module_param(off_start, ulong, 0);
module_param(off_work, ulong, 0);
module_param(off_mark, ulong, 0);
module_param(off_sem, ulong, 0);

enum { UP_START, UP_WORK, UP_WORK_RET, UP_MARK, UP_N };
static atomic_t task_hits[4];		/* by enum stp_task_event */
static atomic_t hits[UP_N];

/* "state": the session state; "hits": start work ret mark. */
static int up_state_get(char *buf, const struct kernel_param *kp)
{
	static const char *const names[] = {
		[STAP_SESSION_STARTING] = "starting",
		[STAP_SESSION_RUNNING] = "running",
		[STAP_SESSION_ERROR] = "error",
		[STAP_SESSION_STOPPING] = "stopping",
		[STAP_SESSION_STOPPED] = "stopped",
	};
	int s = _stp_session_get_state();

	return sysfs_emit(buf, "%s\n", s >= 0 && s < (int)ARRAY_SIZE(names) ?
			  names[s] : "?");
}

static const struct kernel_param_ops up_state_ops = {
	.get = up_state_get,
};
module_param_cb(state, &up_state_ops, NULL, 0444);

static int up_hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d %d %d %d\n", atomic_read(&hits[UP_START]),
			  atomic_read(&hits[UP_WORK]),
			  atomic_read(&hits[UP_WORK_RET]),
			  atomic_read(&hits[UP_MARK]));
}

static const struct kernel_param_ops up_hits_ops = {
	.get = up_hits_get,
};
module_param_cb(hits, &up_hits_ops, NULL, 0444);

/* ---- Probe bodies ---------------------------------------------------- */

static void up_begin(struct context *c)
{
	_stp_printf("begin target=%d\n", (int64_t)_stp_target_pid());
}

static void up_start(struct context *c)
{
	atomic_inc(&hits[UP_START]);
}

/* work(x, s): x, and the string s through the runtime's user reads.
 * For x == 100, s is on a page the process never touched: the raw
 * non-faulting copy shows it is not resident, the runtime's read must
 * fault it in all the same.
 */
static void up_work(struct context *c)
{
	struct pt_regs *r = c->uregs;
	long x = (long)r->di;
	unsigned long s = r->si;
	char buf[64], ch;
	long len;

	atomic_inc(&hits[UP_WORK]);
	if (x == 100)
		_stp_printf("work x=%d resident=%d ", (int64_t)x,
			    (int64_t)!copy_from_user_nofault(&ch,
				(const void __user *)s, 1));
	else
		_stp_printf("work x=%d ", (int64_t)x);
	len = _stp_ustrncpy(buf, s, sizeof(buf));
	_stp_printf("s=%s\n", len < 0 ? "<fault>" : buf);
}

static void up_work_ret(struct context *c)
{
	atomic_inc(&hits[UP_WORK_RET]);
	_stp_printf("ret %d\n", (int64_t)(long)c->uregs->ax);
}

static void up_mark(struct context *c)
{
	long v;

	atomic_inc(&hits[UP_MARK]);
	/* a long of user memory: the return address at the stack pointer */
	if (_stp_uread(&v, c->uregs->sp, sizeof(v)))
		_stp_printf("mark arg=%d sp=<fault>\n", (int64_t)c->uregs->di);
	else
		_stp_printf("mark arg=%d sp=ok\n", (int64_t)c->uregs->di);
}

/* Process and thread events of uptarget: a begin runs in the new task
 * (its parent is the one that created it), with user registers.
 */
static void up_task(struct context *c, int event)
{
	static const char *const names[] = {
		[STP_TASK_BEGIN] = "begin",
		[STP_TASK_END] = "end",
		[STP_TASK_THREAD_BEGIN] = "thread.begin",
		[STP_TASK_THREAD_END] = "thread.end",
	};
	char parent[TASK_COMM_LEN];

	if (strcmp(current->comm, "uptarget"))
		return;
	atomic_inc(&task_hits[event]);
	if (event == STP_TASK_END || event == STP_TASK_THREAD_END)
		return;
	rcu_read_lock();
	strscpy(parent, rcu_dereference(current->real_parent)->comm,
		sizeof(parent));
	rcu_read_unlock();
	_stp_printf("process.%s parent=%s leader=%d user=%d\n", names[event],
		    parent, (int64_t)thread_group_leader(current),
		    (int64_t)c->user_mode_p);
}

static void up_pbegin(struct context *c)
{
	up_task(c, STP_TASK_BEGIN);
}

static void up_pend(struct context *c)
{
	up_task(c, STP_TASK_END);
}

static void up_tbegin(struct context *c)
{
	up_task(c, STP_TASK_THREAD_BEGIN);
}

static void up_tend(struct context *c)
{
	up_task(c, STP_TASK_THREAD_END);
}

static void up_end(struct context *c)
{
	_stp_printf("end start=%d work=%d ret=%d mark=%d\n",
		    (int64_t)atomic_read(&hits[UP_START]),
		    (int64_t)atomic_read(&hits[UP_WORK]),
		    (int64_t)atomic_read(&hits[UP_WORK_RET]),
		    (int64_t)atomic_read(&hits[UP_MARK]));
	_stp_printf("end begin=%d end=%d thread.begin=%d thread.end=%d\n",
		    (int64_t)atomic_read(&task_hits[STP_TASK_BEGIN]),
		    (int64_t)atomic_read(&task_hits[STP_TASK_END]),
		    (int64_t)atomic_read(&task_hits[STP_TASK_THREAD_BEGIN]),
		    (int64_t)atomic_read(&task_hits[STP_TASK_THREAD_END]));
}

enum {
	P_BEGIN, P_END, P_START, P_WORK, P_WORK_RET, P_MARK,
	P_PBEGIN, P_PEND, P_TBEGIN, P_TEND,
};

static struct stp_probe up_probes[] = {
	[P_BEGIN] = { .pp = "begin", .location = "uptest.stp:1:1",
		      .type = STP_PROBE_BEGIN, .handler = up_begin },
	[P_END] = { .pp = "end", .location = "uptest.stp:2:1",
		    .type = STP_PROBE_END, .handler = up_end },
	[P_START] = { .pp = "process(\"uptarget\").function(\"_start\")",
		      .location = "uptest.stp:3:1", .type = STP_PROBE_UPROBE,
		      .handler = up_start },
	[P_WORK] = { .pp = "process(\"uptarget\").function(\"work\")",
		     .location = "uptest.stp:4:1", .type = STP_PROBE_UPROBE,
		     .handler = up_work },
	[P_WORK_RET] = { .pp = "process(\"uptarget\").function(\"work\")"
			       ".return", .location = "uptest.stp:5:1",
			 .type = STP_PROBE_URETPROBE, .handler = up_work_ret },
	[P_MARK] = { .pp = "process(\"uptarget\").mark(\"mark\")",
		     .location = "uptest.stp:6:1", .type = STP_PROBE_UPROBE,
		     .handler = up_mark },
	[P_PBEGIN] = { .pp = "process.begin", .location = "uptest.stp:7:1",
		       .type = STP_PROBE_PROCESS, .handler = up_pbegin },
	[P_PEND] = { .pp = "process.end", .location = "uptest.stp:8:1",
		     .type = STP_PROBE_PROCESS, .handler = up_pend },
	[P_TBEGIN] = { .pp = "process.thread.begin",
		       .location = "uptest.stp:9:1",
		       .type = STP_PROBE_PROCESS, .handler = up_tbegin },
	[P_TEND] = { .pp = "process.thread.end",
		     .location = "uptest.stp:10:1",
		     .type = STP_PROBE_PROCESS, .handler = up_tend },
};

static struct stp_task_probe up_tasks[] = {
	{ .event = STP_TASK_BEGIN, .probe = &up_probes[P_PBEGIN] },
	{ .event = STP_TASK_END, .probe = &up_probes[P_PEND] },
	{ .event = STP_TASK_THREAD_BEGIN, .probe = &up_probes[P_TBEGIN] },
	{ .event = STP_TASK_THREAD_END, .probe = &up_probes[P_TEND] },
};

/* What the translator writes for each uprobe: run the probe. */
static int up_run(struct stp_uprobe *up, struct pt_regs *regs)
{
	__stp_probe_run(up->probe, up->probe->handler, regs, NULL, NULL,
			STAP_SESSION_RUNNING);
	return 0;
}

static struct stp_uprobe up_table[] = {
	{ .path = path, .probe = &up_probes[P_START], .handler = up_run,
	  .must = true },
	{ .path = path, .probe = &up_probes[P_WORK], .handler = up_run,
	  .must = true },
	{ .path = path, .probe = &up_probes[P_WORK_RET], .handler = up_run,
	  .ret = true, .must = true },
	{ .path = path, .probe = &up_probes[P_MARK], .handler = up_run,
	  .must = true },
};

/* ---- The hooks of stp_session.h ---------------------------------------- */

int stp_globals_init(void)
{
	return 0;
}

void stp_globals_free(void)
{
}

int stp_probes_start(void)
{
	int rc;

	up_table[0].offset = off_start;
	up_table[1].offset = off_work;
	up_table[2].offset = off_work;
	up_table[3].offset = off_mark;
	up_table[3].sdt_sem = off_sem;
	_stp_probe_run(&up_probes[P_BEGIN], NULL, STAP_SESSION_STARTING);
	if (_stp_session_get_state() != STAP_SESSION_STARTING)
		return STP_PROBES_UNARMED;
	rc = _stp_uprobes_register(up_table, ARRAY_SIZE(up_table));
	if (rc)
		return rc;
	rc = _stp_task_probes_register(up_tasks, ARRAY_SIZE(up_tasks));
	if (rc) {
		_stp_uprobes_unregister(up_table, ARRAY_SIZE(up_table));
		return rc;
	}
	atomic_cmpxchg(&_stp_session_state, STAP_SESSION_STARTING,
		       STAP_SESSION_RUNNING);
	return 0;
}

void stp_probes_stop(bool armed)
{
	if (armed) {
		_stp_task_probes_unregister(up_tasks, ARRAY_SIZE(up_tasks));
		_stp_uprobes_unregister(up_table, ARRAY_SIZE(up_table));
	}
	_stp_probe_run(&up_probes[P_END], NULL, STAP_SESSION_STOPPING);
}
