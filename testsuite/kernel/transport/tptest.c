// SPDX-License-Identifier: GPL-2.0
/*
 * tptest.c - the transport test module: the runtime's module life cycle,
 * control channel and relay output, driven by hand-written probes (an
 * hrtimer, a kthread) in place of generated code.  staprun's var=val
 * arguments choose the scenario (mode=...); test.sh runs them in the VM.
 */
#include "stp_runtime_pre.h"
#include "tapset-api.h"
#include "stp_probe.h"
#include "stp_session.h"
#include "stp_print.h"
#include "stp_transport.h"

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/relay.h>
#include <linux/sched/signal.h>

/* The runtime, as stp_core.c builds it for a generated module. */
#include "stp_probe.c"
#include "stp_usym.c"
#include "stp_mem.c"
#include "stp_session.c"
#include "stp_ctl.c"
#include "stp_transport.c"
#include "stp_monitor.c"
#include "stp_print.c"
#include "stp_vsprintf.c"
#include "stp_main.c"

const char stp_module_name[] = "tptest";
const struct stp_script stp_script = {
	.context_size = sizeof(struct context),
	.maxstringlen = MAXSTRINGLEN,
	.maxnesting = MAXNESTING,
};

/*
 * Scenarios: lines (timer prints `lines` ticks, then exit()), forever
 * (ticks until staprun stops it), error (a script error at tick 3), warn,
 * skip (MAXSKIPPED + 1 skips), system, exitbegin, failstart, flood
 * (`lines` lines from a kthread as fast as staprun reads them, `batch`
 * per probe hit), burst (`burst_kb` KB from one handler, run by writing
 * to the burst_now parameter, while test.sh holds staprun stopped).
 */
static char mode[16] = "lines";
module_param_string(mode, mode, sizeof(mode), 0);
static long lines = 10;
module_param(lines, long, 0);
static long period_us = 2000;
module_param(period_us, long, 0);
static long burst_kb = 1024;
module_param(burst_kb, long, 0);
static long batch = 1;			/* flood lines per probe hit */
module_param(batch, long, 0);

/* Read from /sys/module/tptest/parameters/ while the module runs. */
static unsigned long ticks;
module_param(ticks, ulong, 0444);

/* The death tests: the module lingers stall_ms in one stage (init,
 * register, begin or end) so that staprun can be ended there; phase
 * says which stage it is in.
 */
static char stall[16];
module_param_string(stall, stall, sizeof(stall), 0);
static long stall_ms;
module_param(stall_ms, long, 0);
static char phase[16] = "loading";
module_param_string(phase, phase, sizeof(phase), 0444);

static void tp_phase(const char *p)
{
	strscpy(phase, p, sizeof(phase));
}

static bool tp_stalls(const char *stage)
{
	return stall_ms > 0 && !strcmp(stall, stage);
}

/* Process context.  A registration stops when staprun is told to stop
 * or killed, as the runtime's do (_stp_start_interrupted()); module
 * init and the end probes run on.
 */
static int tp_stall(bool interruptible)
{
	unsigned long end = jiffies + msecs_to_jiffies(stall_ms);

	/* by the clock: msleep(10) sleeps a few jiffies more each time */
	while (time_before(jiffies, end)) {
		if (interruptible && _stp_start_interrupted())
			return -EINTR;
		msleep(10);
	}
	return 0;
}

static int tp_state_get(char *buf, const struct kernel_param *kp)
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

static const struct kernel_param_ops tp_state_ops = {
	.get = tp_state_get,
};
module_param_cb(state, &tp_state_ops, NULL, 0444);

static struct hrtimer tp_timer;
static bool tp_timer_armed;
static bool tp_timer_stop;
static struct task_struct *tp_thread;
static long tp_sent;
static u64 tp_flood_ns;
static u64 tp_burst_bytes;

static bool is_mode(const char *m)
{
	return !strcmp(mode, m);
}

/* ---- Probe bodies ---------------------------------------------------- */

/* Fixed-size lines, numbered, so that test.sh can check every byte;
 * written a print buffer at a time.  One begin probe runs at a time, so
 * the chunk need not be on the stack.
 */
static char tp_chunk[STP_PRINT_BUF_LEN + 1];

static void tp_burst(void)
{
	const long per = STP_PRINT_BUF_LEN / 64;
	long total = burst_kb * 1024, off, i;

	for (off = 0; off < total; off += per * 64) {
		for (i = 0; i < per; i++)
			scnprintf(tp_chunk + i * 64, 65, "burst %57ld\n",
				  off / 64 + i);
		_stp_transport_write(tp_chunk, per * 64);
		tp_burst_bytes += per * 64;
	}
}

static void tp_burst_probe(struct context *c)
{
	tp_burst();
	_stp_request_exit();
}

static void tp_begin(struct context *c)
{
	int i;

	if (is_mode("burst"))
		return;
	if (tp_stalls("begin")) {
		/* a long begin probe: its handler cannot be cut short */
		tp_phase("begin");
		mdelay(stall_ms);
	}
	_stp_printf("begin target=%d\n", (int64_t)_stp_target_pid());
	if (is_mode("warn")) {
		_stp_warn("test warning %d", 42);
		_stp_request_exit();
	} else if (is_mode("skip")) {
		for (i = 0; i <= MAXSKIPPED; i++)
			_stp_probe_skipped();
	} else if (is_mode("system")) {
		_stp_printf("before system\n");
		_stp_system("echo system ran");
		_stp_request_exit();
	} else if (is_mode("exitbegin")) {
		_stp_request_exit();
	}
}

static void tp_tick(struct context *c)
{
	unsigned long n = ++ticks;

	if (is_mode("error") && n == 3) {
		_stp_error_at(c, "division by 0",
			      "operator '/' at tptest.stp:3:14");
		return;
	}
	if (lines && n > lines)
		return;
	_stp_printf("tick %d\n", (int64_t)n);
	if (lines && n == lines)
		_stp_request_exit();
}

static void tp_flood_line(struct context *c)
{
	long i;

	for (i = 0; i < batch && tp_sent < lines; i++) {
		_stp_printf("flood %d\n", (int64_t)tp_sent);
		tp_sent++;
	}
}

static void tp_end(struct context *c)
{
	if (is_mode("burst")) {
		_stp_warn("burst sent %llu bytes",
			  (unsigned long long)tp_burst_bytes);
		return;
	}
	if (is_mode("flood"))
		_stp_printf("flood: %d lines in %d us\n", (int64_t)tp_sent,
			    (int64_t)div_u64(tp_flood_ns, 1000));
	_stp_printf("end ticks=%d\n", (int64_t)ticks);
}

static void tp_error(struct context *c)
{
	_stp_printf("error probe ran\n");
}

enum { TP_BEGIN, TP_TICK, TP_FLOOD, TP_BURST, TP_END, TP_ERROR };

static struct stp_probe tp_probes[] = {
	[TP_BEGIN] = { .pp = "begin", .location = "tptest.stp:1:1",
		       .type = STP_PROBE_BEGIN, .handler = tp_begin },
	[TP_TICK] = { .pp = "timer.us(2000)", .location = "tptest.stp:2:1",
		      .type = STP_PROBE_HRTIMER, .handler = tp_tick },
	[TP_FLOOD] = { .pp = "kernel.function(\"flood\")",
		       .location = "tptest.stp:4:1",
		       .type = STP_PROBE_KPROBE, .handler = tp_flood_line },
	[TP_BURST] = { .pp = "procfs(\"burst\").write",
		       .location = "tptest.stp:5:1",
		       .type = STP_PROBE_PROCFS, .handler = tp_burst_probe },
	[TP_END] = { .pp = "end", .location = "tptest.stp:5:1",
		     .type = STP_PROBE_END, .handler = tp_end },
	[TP_ERROR] = { .pp = "error", .location = "tptest.stp:6:1",
		       .type = STP_PROBE_ERROR, .handler = tp_error },
};

/* ---- Probe sources ---------------------------------------------------- */

/* Hard-interrupt context, the strictest a probe sees. */
static enum hrtimer_restart tp_timer_fn(struct hrtimer *t)
{
	_stp_probe_run(&tp_probes[TP_TICK], NULL, STAP_SESSION_RUNNING);
	hrtimer_forward_now(t, ns_to_ktime(period_us * NSEC_PER_USEC));
	return READ_ONCE(tp_timer_stop) ? HRTIMER_NORESTART :
					  HRTIMER_RESTART;
}

/* echo 1 >/sys/module/tptest/parameters/burst_now: process context. */
static int tp_burst_set(const char *val, const struct kernel_param *kp)
{
	if (!is_mode("burst"))
		return -EINVAL;
	_stp_probe_run(&tp_probes[TP_BURST], NULL, STAP_SESSION_RUNNING);
	return 0;
}

static const struct kernel_param_ops tp_burst_ops = {
	.set = tp_burst_set,
};
module_param_cb(burst_now, &tp_burst_ops, NULL, 0200);

/* Whether this CPU's relay buffer is nearly full: the flood waits for
 * staprun instead of losing lines, so it measures what the transport
 * carries.  A generated module has no such brake.
 */
static bool tp_relay_congested(bool report)
{
	struct rchan_buf *buf;
	bool full;

	preempt_disable();
	buf = *this_cpu_ptr(_stp_relay_chan->buf);
	full = buf->subbufs_produced - buf->subbufs_consumed + 2 >=
	       _stp_relay_chan->n_subbufs || this_cpu_ptr(&_stp_tcpu)->ov_len;
	if (report)
		pr_warn("tptest: flood stalled on CPU %d: produced %zu, "
			"consumed %zu of %zu sub-buffers, offset %zu, "
			"%u bytes waiting\n", smp_processor_id(),
			buf->subbufs_produced, buf->subbufs_consumed,
			_stp_relay_chan->n_subbufs, buf->offset,
			this_cpu_ptr(&_stp_tcpu)->ov_len);
	preempt_enable();
	return full;
}

/* A brake held for TP_STALL_S seconds is a stalled transport: the flood
 * says where (in the kernel log, which the harness shows) and stops, so
 * that the check fails with the evidence instead of the whole run
 * waiting for its time limit.
 */
#define TP_STALL_S 30

static int tp_flood_fn(void *arg)
{
	unsigned long since = 0;
	bool stalled = false;
	u64 t0;

	/* Started with the probes, the thread may run before the session
	 * does (on the other CPU): it waits for that, or it would end at
	 * once and never ask for the exit that staprun waits for.
	 */
	while (!kthread_should_stop() &&
	       _stp_session_get_state() == STAP_SESSION_STARTING)
		usleep_range(100, 200);
	t0 = ktime_get_ns();
	while (!kthread_should_stop() && tp_sent < lines &&
	       _stp_session_get_state() == STAP_SESSION_RUNNING) {
		if (tp_relay_congested(false)) {
			if (!since)
				since = jiffies;
			if (time_after(jiffies, since + TP_STALL_S * HZ)) {
				tp_relay_congested(true);
				stalled = true;
				break;
			}
			usleep_range(100, 200);
			continue;
		}
		since = 0;
		_stp_probe_run(&tp_probes[TP_FLOOD], NULL,
			       STAP_SESSION_RUNNING);
		cond_resched();
	}
	tp_flood_ns = ktime_get_ns() - t0;
	if (tp_sent >= lines || stalled)
		_stp_request_exit();
	/* kthread_stop() wants the thread alive until it is called. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/* ---- The hooks of stp_session.h ---------------------------------------- */

int stp_globals_init(void)
{
	if (tp_stalls("init")) {
		tp_phase("init");
		tp_stall(false);
	}
	return 0;
}

void stp_globals_free(void)
{
}

int stp_probes_start(void)
{
	struct task_struct *t;

	if (is_mode("failstart"))
		return -ENODEV;
	_stp_probe_run(&tp_probes[TP_BEGIN], NULL, STAP_SESSION_STARTING);
	if (_stp_session_get_state() != STAP_SESSION_STARTING)
		return STP_PROBES_UNARMED;
	if (tp_stalls("register")) {
		tp_phase("register");
		if (tp_stall(true))
			return -EINTR;
	}
	if (is_mode("flood")) {
		t = kthread_run(tp_flood_fn, NULL, "tptest_flood");
		if (IS_ERR(t))
			return PTR_ERR(t);
		tp_thread = t;
	} else if (is_mode("lines") || is_mode("forever") ||
		   is_mode("error")) {
		if (is_mode("forever"))
			lines = 0;
		hrtimer_init(&tp_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		tp_timer.function = tp_timer_fn;
		hrtimer_start(&tp_timer, ns_to_ktime(period_us * NSEC_PER_USEC),
			      HRTIMER_MODE_REL);
		tp_timer_armed = true;
	}
	atomic_cmpxchg(&_stp_session_state, STAP_SESSION_STARTING,
		       STAP_SESSION_RUNNING);
	tp_phase("running");
	return 0;
}

/* What is armed is in tp_timer_armed and tp_thread. */
void stp_probes_stop(bool armed)
{
	if (tp_timer_armed) {
		WRITE_ONCE(tp_timer_stop, true);
		hrtimer_cancel(&tp_timer);
		tp_timer_armed = false;
	}
	if (tp_thread) {
		kthread_stop(tp_thread);
		tp_thread = NULL;
	}
	if (tp_stalls("end")) {
		tp_phase("end");
		tp_stall(false);
	}
	if (_stp_session_get_state() == STAP_SESSION_ERROR)
		_stp_probe_run(&tp_probes[TP_ERROR], NULL, STAP_SESSION_ERROR);
	else
		_stp_probe_run(&tp_probes[TP_END], NULL,
			       STAP_SESSION_STOPPING);
	tp_phase("stopped");
}
