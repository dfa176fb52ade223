/* stp_session.c - the life of a loaded module: the session state
 * machine, START and EXIT as staprun sends them (or as a vanished
 * staprun implies), exit(), script errors, skipped probes and the
 * closing report.
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>

#include "msg.h"
#include "stp_session.h"
#include "stp_transport.h"
#include "tapset-api.h"

atomic_t _stp_session_state = ATOMIC_INIT(STAP_SESSION_STARTING);
atomic_t _stp_error_count = ATOMIC_INIT(0);
atomic_t _stp_skipped_count = ATOMIC_INIT(0);

static pid_t _stp_sess_target;
static pid_t _stp_sess_stapio;
static bool _stp_sess_ready;		/* module init is complete */
static unsigned long _stp_sess_start_taken; /* bit 0: START accepted */
static bool _stp_sess_started;		/* the begin probes ran */
static bool _stp_sess_armed;		/* ... and every probe registered */
static bool _stp_sess_ended;		/* probes are disarmed, end has run */
static bool _stp_sess_stopped;		/* the stop sequence has run */
static bool _stp_sess_failed;		/* the run ended in error */
static atomic_t _stp_sess_skip_told = ATOMIC_INIT(0);
static bool _stp_sess_orphaned;		/* its reader closed the channel */

/* What the work item has to do, bits of _stp_sess_todo.  START and the
 * end probes of EXIT run in staprun's own context (its write() of the
 * command), so that execname() and pid() there are staprun's as users
 * expect; the work item drains the output and answers EXIT, which must
 * not keep staprun from reading.
 */
enum {
	STP_SESS_EXIT,			/* stop, then answer EXIT */
	STP_SESS_DETACH,		/* stop, nobody to answer */
};

static unsigned long _stp_sess_todo;
static DEFINE_MUTEX(_stp_sess_mutex);

/* /sys/module/MODULE/parameters/_stp_state: where the session is, and
 * whether a staprun reads it ("stopped, orphaned" after staprun died:
 * no probe is armed; staprun -d MODULE removes it).
 */
static int _stp_sess_state_get(char *buf, const struct kernel_param *kp)
{
	static const char *const names[] = {
		[STAP_SESSION_STARTING] = "starting",
		[STAP_SESSION_RUNNING] = "running",
		[STAP_SESSION_ERROR] = "error",
		[STAP_SESSION_STOPPING] = "stopping",
		[STAP_SESSION_STOPPED] = "stopped",
	};
	int s = _stp_session_get_state();

	return sysfs_emit(buf, "%s%s\n", s >= 0 && s < (int)ARRAY_SIZE(names) ?
			  names[s] : "?",
			  READ_ONCE(_stp_sess_orphaned) &&
			  !_stp_ctl_attached() ? ", orphaned" : "");
}

static const struct kernel_param_ops _stp_sess_state_ops = {
	.get = _stp_sess_state_get,
};
module_param_cb(_stp_state, &_stp_sess_state_ops, NULL, 0444);
MODULE_PARM_DESC(_stp_state, "the session's state (read-only)");

/* --remote: this host's index among the session's hosts and the URL
 * that named it, as stap passes them to staprun; -1 and "" when the
 * session was not started with --remote.
 */
static int _stp_remote_id = -1;
module_param(_stp_remote_id, int, 0);
MODULE_PARM_DESC(_stp_remote_id, "the host's index under stap --remote");
static char _stp_remote_uri[256];
module_param_string(_stp_remote_uri, _stp_remote_uri,
		    sizeof(_stp_remote_uri), 0);
MODULE_PARM_DESC(_stp_remote_uri, "the host's URL under stap --remote");

int _stp_remote_index(void)
{
	return _stp_remote_id;
}

const char *_stp_remote_url(void)
{
	return _stp_remote_uri;
}

pid_t _stp_target_pid(void)
{
	return READ_ONCE(_stp_sess_target);
}

pid_t _stp_stapio_pid(void)
{
	return READ_ONCE(_stp_sess_stapio);
}

/* Only root loads modules: every session is privileged. */
int _stp_is_myproc(void)
{
	return 1;
}

/* Leave RUNNING, or STARTING while begin probes run, for state to.
 * False when the session had left them already (nothing to ask then).
 */
static bool _stp_sess_leave_running(int to)
{
	if (atomic_cmpxchg(&_stp_session_state, STAP_SESSION_RUNNING, to) ==
	    STAP_SESSION_RUNNING)
		return true;
	return atomic_cmpxchg(&_stp_session_state, STAP_SESSION_STARTING,
			      to) == STAP_SESSION_STARTING;
}

void _stp_request_exit(void)
{
	if (_stp_sess_leave_running(STAP_SESSION_STOPPING))
		_stp_ctl_request_exit();
}

/* Errors end the run through the error probes instead of the end ones;
 * an error in an end probe keeps the end probes after it from running.
 */
static void _stp_sess_fail(void)
{
	if (_stp_sess_leave_running(STAP_SESSION_ERROR))
		_stp_ctl_request_exit();
	else
		atomic_cmpxchg(&_stp_session_state, STAP_SESSION_STOPPING,
			       STAP_SESSION_ERROR);
}

void _stp_request_error_exit(void)
{
	_stp_sess_fail();
}

void _stp_soft_error(const char *msg, const char *where)
{
	if (!msg || !*msg)
		msg = "Unknown error.";
	if (where && *where)
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: %s near %s\n",
				msg, where);
	else
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: %s\n", msg);
	if (atomic_inc_return(&_stp_error_count) > MAXERRORS)
		_stp_sess_fail();
}

void _stp_probe_skipped(void)
{
	if (atomic_inc_return(&_stp_skipped_count) <= MAXSKIPPED)
		return;
	if (atomic_cmpxchg(&_stp_sess_skip_told, 0, 1))
		return;
	_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: Skipped too many "
			"probes, check MAXSKIPPED or try again with stap -t "
			"for more details.\n");
	_stp_sess_fail();
}

/* ---- START and EXIT ------------------------------------------------ */

/* The stop signals of staprun (loader/run.c): blocked there, so only
 * the queues show them.  A racy read of a pending mask is enough: a
 * signal that lands just after it is seen at the next probe, or by
 * staprun once START returns.
 */
#define STP_STOP_SIGNALS (sigmask(SIGINT) | sigmask(SIGTERM) | \
			  sigmask(SIGHUP) | sigmask(SIGQUIT))

bool _stp_start_interrupted(void)
{
	unsigned long pending;

	if (fatal_signal_pending(current))
		return true;
	pending = READ_ONCE(current->pending.signal.sig[0]) |
		  READ_ONCE(current->signal->shared_pending.signal.sig[0]);
	return pending & STP_STOP_SIGNALS;
}

static void _stp_sess_do_start(void)
{
	struct stp_msg_start_rc r = { 0 };
	int rc;

	if (_stp_sess_ended) {
		r.rc = -ESRCH;		/* EXIT came first */
		goto out;
	}
	_stp_usyms_start();
	/* The begin probes run one after another in this task: on one CPU
	 * their output goes into one relay buffer, in the order they ran,
	 * where staprun reads it.  Sleeping stays allowed.
	 */
	migrate_disable();
	rc = stp_probes_start();
	migrate_enable();
	if (rc == 0 || rc == STP_PROBES_UNARMED) {
		_stp_sess_started = true;
		_stp_sess_armed = rc == 0;
	} else if (rc == -EINTR) {
		/* staprun is about to send EXIT: the begin probes ran, so
		 * the end probes will, over no armed probe
		 */
		_stp_sess_started = true;
		atomic_cmpxchg(&_stp_session_state, STAP_SESSION_STARTING,
			       STAP_SESSION_STOPPING);
		r.rc = rc;
	} else {
		/* Nothing is armed: stopping only flushes. */
		atomic_set(&_stp_session_state, STAP_SESSION_ERROR);
		_stp_sess_failed = true;
		r.rc = rc;
	}
out:
	_stp_ctl_send(STP_MSG_START, &r, sizeof(r), true);
}

/* The closing lines on stderr; they may use the reserved buffers. */
static void _stp_sess_report(void)
{
	int errors = atomic_read(&_stp_error_count);
	int skipped = atomic_read(&_stp_skipped_count);
	unsigned int dropped = _stp_ctl_dropped();
	u64 lost = _stp_transport_lost();

	if (errors || skipped)
		_stp_ctl_printf(STP_MSG_WARNING, true, "WARNING: Number of "
				"errors: %d, skipped probes: %d\n", errors,
				skipped);
	if (skipped)
		_stp_probe_skip_report();
	if (lost)
		_stp_ctl_printf(STP_MSG_WARNING, true, "WARNING: %llu bytes "
				"of output were lost: staprun fell behind "
				"(stap -s MB gives larger buffers)\n",
				(unsigned long long)lost);
	if (dropped)
		_stp_ctl_printf(STP_MSG_WARNING, true, "WARNING: %u warning "
				"and error messages were dropped (too many at "
				"once)\n", dropped);
}

/* Disarm the probes and run the end (or error) probes, once. */
static void _stp_sess_do_end(void)
{
	if (_stp_sess_ended)
		return;
	_stp_sess_ended = true;
	if (_stp_sess_started) {
		_stp_sess_leave_running(STAP_SESSION_STOPPING);
		/* the end probes' output in order, as the begin probes' */
		migrate_disable();
		stp_probes_stop(_stp_sess_armed);
		migrate_enable();
	}
	_stp_usyms_stop();
}

static void _stp_sess_do_stop(bool reply)
{
	struct stp_msg_exit_rc r = { 0 };

	if (!_stp_sess_stopped) {
		_stp_sess_stopped = true;
		_stp_sess_do_end();
		if (atomic_read(&_stp_session_state) == STAP_SESSION_ERROR)
			_stp_sess_failed = true;
		_stp_transport_flush();
		_stp_sess_report();
		atomic_set(&_stp_session_state, STAP_SESSION_STOPPED);
	}
	if (!reply)
		return;
	r.errors = atomic_read(&_stp_error_count);
	r.skipped = atomic_read(&_stp_skipped_count);
	r.lost = _stp_transport_lost();
	r.failed = _stp_sess_failed;
	_stp_ctl_send(STP_MSG_EXIT, &r, sizeof(r), true);
}

/* The rest of a stop: the output drained, the report, the answer. */
static void _stp_sess_work_fn(struct work_struct *work)
{
	mutex_lock(&_stp_sess_mutex);
	if (test_and_clear_bit(STP_SESS_EXIT, &_stp_sess_todo))
		_stp_sess_do_stop(true);
	if (test_and_clear_bit(STP_SESS_DETACH, &_stp_sess_todo))
		_stp_sess_do_stop(false);
	mutex_unlock(&_stp_sess_mutex);
}

static DECLARE_WORK(_stp_sess_work, _stp_sess_work_fn);

static void _stp_sess_queue(int what)
{
	set_bit(what, &_stp_sess_todo);
	queue_work(system_long_wq, &_stp_sess_work);
}

void _stp_session_ready(void)
{
	WRITE_ONCE(_stp_sess_ready, true);
}

int _stp_session_start_cmd(pid_t target)
{
	if (!READ_ONCE(_stp_sess_ready))
		return -EAGAIN;
	if (test_and_set_bit(0, &_stp_sess_start_taken))
		return -EBUSY;
	WRITE_ONCE(_stp_sess_target, target);
	WRITE_ONCE(_stp_sess_stapio, task_tgid_nr(current));
	mutex_lock(&_stp_sess_mutex);
	_stp_sess_do_start();
	mutex_unlock(&_stp_sess_mutex);
	return 0;
}

bool _stp_session_start_accepted(void)
{
	return test_bit(0, &_stp_sess_start_taken);
}

void _stp_session_exit_cmd(void)
{
	if (!READ_ONCE(_stp_sess_ready))
		return;
	mutex_lock(&_stp_sess_mutex);
	_stp_sess_do_end();
	mutex_unlock(&_stp_sess_mutex);
	_stp_sess_queue(STP_SESS_EXIT);
}

/* Before init is complete (a failed init frees the module) or once
 * module exit has begun, the work item must not be queued: module exit
 * stops the session itself.
 */
void _stp_session_detached(void)
{
	WRITE_ONCE(_stp_sess_orphaned, true);
	if (READ_ONCE(_stp_sess_ready))
		_stp_sess_queue(STP_SESS_DETACH);
}

/* The control file is closed by now (it holds a module reference), so
 * nothing queues more work.
 */
void _stp_session_shutdown(void)
{
	WRITE_ONCE(_stp_sess_ready, false);
	flush_work(&_stp_sess_work);
	mutex_lock(&_stp_sess_mutex);
	_stp_sess_do_stop(false);
	mutex_unlock(&_stp_sess_mutex);
}
