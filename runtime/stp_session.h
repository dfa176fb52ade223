/* stp_session.h - the life of a loaded module: states, the hooks the
 * generated code provides, exit() and error handling, and what the
 * runtime's module init/exit do with the transport.
 *
 * Life: insmod -> module init (transport up, globals allocated, nothing
 * armed) -> staprun sends START -> stp_probes_start() (begin probes,
 * then registration) -> RUNNING -> exit()/SIGINT/-T/-c exit/errors ->
 * staprun sends EXIT (or the module asks for it) -> stp_probes_stop()
 * (unregister, drain, end or error probes) -> output flushed -> STOPPED
 * -> staprun unloads.  If the control channel closes without EXIT
 * (staprun killed), the module stops itself the same way.  A stop
 * signal for staprun during the registration cuts it short: START
 * answers -EINTR with nothing armed, and the EXIT that follows runs the
 * end probes only.
 */
#ifndef STP_SESSION_H
#define STP_SESSION_H

#include "stp_limits.h"

enum stp_session_state {
	STAP_SESSION_STARTING,
	STAP_SESSION_RUNNING,
	STAP_SESSION_ERROR,
	STAP_SESSION_STOPPING,
	STAP_SESSION_STOPPED,
};

extern atomic_t _stp_session_state;
extern atomic_t _stp_error_count;
extern atomic_t _stp_skipped_count;

static inline int _stp_session_get_state(void)
{
	return atomic_read(&_stp_session_state);
}

/* Hooks the generated module defines. */
int stp_globals_init(void);		/* allocate arrays/stats; -errno */
void stp_globals_free(void);
/* The begin probes, then the registration of the others: 0 once every
 * probe is armed; STP_PROBES_UNARMED when a begin probe ended the
 * session (exit(), an error) and nothing was registered; -EINTR when
 * staprun was told to stop during the registration
 * (_stp_start_interrupted()), which undid what it had registered;
 * another -errno when a registration failed (undone too).
 */
int stp_probes_start(void);
#define STP_PROBES_UNARMED 1
/* Unregister all (when armed: stp_probes_start() returned 0), wait for
 * running handlers, run the end or error probes and print the
 * written-only globals.
 */
void stp_probes_stop(bool armed);
extern const char stp_module_name[];

struct inode;
struct seq_file;
struct stp_probe;
struct stp_kline;
struct stp_uobj;

/* What the runtime's core, compiled once for every script (stp_core.c),
 * learns of the script's module: the size of its probe context (the
 * common part of struct context and the script's locals after it), and
 * the tables it writes.  The generated module defines stp_script.
 */
struct stp_script {
	size_t context_size;		/* its sizeof(struct context) */
	int maxstringlen;		/* MAXSTRINGLEN as it was built */
	int maxnesting;			/* MAXNESTING, for messages */
	bool timing;			/* stap -t */
	/* stap --monitor: the probes to report, the globals' report and
	 * their reset (the generated module writes them)
	 */
	bool monitor;
	struct stp_probe *probes;
	int nprobes;
	void (*monitor_globals)(struct seq_file *m);
	void (*monitor_reset)(void);
	/* kernel lines (stp_lines.h): sorted by name */
	const struct stp_kline *klines;
	unsigned int nklines;
	/* user objects (stp_usym.h), with room for the inode of each
	 * while the probes are armed
	 */
	const struct stp_uobj *uobjs;
	struct inode **uobj_inodes;
	unsigned int nuobjs;
	/* the limits of stp_limits.h that the core reads from here (with
	 * the same names as macros): STP_SCRIPT_LIMITS fills them in
	 */
	long action_budget;
	int maxtrylock;
	int maxmapentries;
	int maxerrors;
	int maxskipped;
	int minstackspace;
	int hist_elision;
	bool overload;
	long long overload_threshold;
	long long overload_interval;
	long long overload_sample_max;
};
extern const struct stp_script stp_script;

/* exit(): STOPPING; the current handler finishes, later hits return at
 * once, staprun is asked to send EXIT.
 */
void _stp_request_exit(void);
/* Report a script error from a probe ("ERROR: msg near ... at f:l:c"),
 * count it, and stop the session when the count passes MAXERRORS.
 */
void _stp_soft_error(const char *msg, const char *where);
/* End the session through the error probes (overload). */
void _stp_request_error_exit(void);
/* A probe skipped (reentrancy, lock timeout, low stack); the session
 * stops with "Skipped too many probes" past MAXSKIPPED.
 */
void _stp_probe_skipped(void);
/* Whether the registration that START runs (in staprun's write()) is
 * to stop at once: staprun was sent SIGINT, SIGTERM, SIGHUP or SIGQUIT
 * (which it keeps blocked, to read them from a signalfd: a blocked
 * signal is pending without signal_pending() seeing it), or is being
 * killed.  Every family's registration loop asks it between probes.
 */
bool _stp_start_interrupted(void);
/* The target of -x PID / -c CMD, 0 when none; set by staprun at START. */
pid_t _stp_target_pid(void);

/* ---- Driven by module init/exit and the control channel ------------ */

/* Module init is complete: START may be accepted. */
void _stp_session_ready(void);
/* staprun's START and EXIT (process context, from the control file's
 * write()).  They are carried out by a work item, which answers with
 * START{rc} and EXIT{...}: staprun keeps reading output meanwhile.
 * START returns -EAGAIN before init is complete, -EBUSY when repeated.
 */
int _stp_session_start_cmd(pid_t target);
void _stp_session_exit_cmd(void);
/* START was accepted once: the session may be detached. */
bool _stp_session_start_accepted(void);
/* The control file was closed: without EXIT, stop anyway (no reply). */
void _stp_session_detached(void);
/* Module exit: wait for the work item, stop if still running. */
void _stp_session_shutdown(void);

#endif
