/* run.c - a module's life as staprun drives it: insertion, the
 * TRANSPORT/READY handshake, START, the loop that copies the output and
 * answers the module's messages and the user's signals, EXIT, the last
 * output, removal.  The -c command and system() commands start here.
 */
#define _GNU_SOURCE
#include "run.h"

#include "ctl.h"
#include "feed.h"
#include "modload.h"
#include "monitor.h"
#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

/* relay announces only full sub-buffers: a partly filled one is read
 * after at most this long.
 */
#define READ_INTERVAL_MS 200
#define CTL_OPEN_TIMEOUT_MS 5000
#define TRANSPORT_TIMEOUT_MS 5000
/* Signals after EXIT that make staprun stop waiting for the module. */
#define GIVE_UP_SIGNALS 3
/* How long staprun waits for system() commands before it exits. */
#define SYSTEM_WAIT_MS 10000
#define MAX_POLL_CPUS 4096

/* The signals that end the run; SIGCHLD (a child ended) and SIGUSR2
 * (switch the -o file) are read with them.
 */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

struct run;
static void request_exit(struct run *r);

struct run {
	const struct staprun_options *o;
	char dir[PATH_MAX];		/* debugfs/systemtap/MODULE */
	int ctl;			/* .cmd */
	int sfd;			/* signalfd */
	sigset_t oldmask;
	struct sigaction oldact[4];	/* of stop_signals[] */
	struct relay relay;
	struct feed feed;		/* -i */
	struct monitor *mon;		/* -M, else NULL */
	pid_t target;			/* the -c command, until it ends */
	bool target_traced;		/* held by ptrace (else SIGSTOP) */
	bool target_held;		/* not yet let go */
	int nsystem;			/* system() commands running */
	bool exit_sent;
	bool exit_seen;
	bool detached;			/* DETACH sent: the module runs on */
	bool handshaken;		/* TRANSPORT and READY went through */
	int daemon_fd;			/* -D: the parent waits on it, or -1 */
	bool abandon;			/* stop waiting for the module */
	int signals_after_exit;
	bool deadline_set;		/* -T */
	struct timespec deadline;
	int status;
};

/* -D: the run is under way (the script started, or -A attached): the
 * parent that waits prints our pid and exits, and the terminal is
 * left alone from here on.
 */
static void daemon_ready(struct run *r)
{
	int fd;

	if (r->daemon_fd < 0)
		return;
	if (write(r->daemon_fd, "", 1) < 0) {
		/* the parent is gone: nobody to tell */
	}
	close(r->daemon_fd);
	r->daemon_fd = -1;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

/* -L, or SIGQUIT under -A: leave the session running in the kernel,
 * its output kept in the module's buffers until a staprun -A.
 */
static void request_detach(struct run *r)
{
	int err;

	if (r->exit_sent || r->detached)
		return;
	relay_drain(&r->relay);
	err = ctl_send(r->ctl, STP_MSG_DETACH, NULL, 0);
	if (err) {
		fprintf(stderr, "staprun: the module cannot be detached: "
			"%s\n", strerror(-err));
		r->status = 1;
		request_exit(r);
		return;
	}
	r->detached = true;
	fprintf(stderr, "staprun: module %s runs detached; 'staprun -A "
		"%s' attaches to it, 'staprun -d %s' removes it\n",
		r->o->module_name, r->o->module_name, r->o->module_name);
}

static void request_exit(struct run *r)
{
	int err;

	if (r->exit_sent)
		return;
	r->exit_sent = true;
	feed_stop(&r->feed);		/* the probes no longer run */
	if (r->mon)
		monitor_stopping(r->mon);
	err = ctl_send(r->ctl, STP_MSG_EXIT, NULL, 0);
	if (err) {
		fprintf(stderr, "staprun: cannot send EXIT to the module: %s\n",
			strerror(-err));
		r->abandon = true;
		r->status = 1;
	}
}

/* ---- Children: the -c command and system() -------------------------- */

/* A child starts with the signals staprun was given. */
static void child_signals(const struct run *r)
{
	size_t i;

	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &r->oldact[i], NULL);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
}

/* -c CMD, in the child: CMD's own words when it needs no shell, so that
 * target() is the command and execname() its name; /bin/sh -c CMD for
 * what only a shell can do (operators, redirections, substitutions,
 * shell variables), as SystemTap decides.  wordexp() runs here, after
 * the fork, so that $$ is the command's pid, as it is for a shell.
 */
static void exec_command(const char *cmd)
{
	wordexp_t w;

	if (wordexp(cmd, &w, WRDE_NOCMD | WRDE_UNDEF) == 0) {
		if (w.we_wordc > 0) {
			execvp(w.we_wordv[0], w.we_wordv);
			fprintf(stderr, "staprun: cannot run '%s': %s\n",
				w.we_wordv[0], strerror(errno));
			wordfree(&w);
			_exit(127);
		}
		wordfree(&w);
	}
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	fprintf(stderr, "staprun: cannot run /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

/* Under -i the input is the script's, and under -M on a terminal its
 * keys are the live view's: the command reads none of it.
 */
static void command_stdin(const struct run *r)
{
	int fd;

	if (!r->o->read_stdin && !(r->o->monitor && isatty(STDIN_FILENO)))
		return;
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != STDIN_FILENO) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
}

/* The command is held at its first instruction, after exec, until the
 * probes are armed: target() is its pid, and no probe sees staprun's
 * child before it became the command.  Where ptrace is not allowed it
 * is held before exec instead.
 */
static int target_start(struct run *r)
{
	int st;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "staprun: cannot fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		child_signals(r);
		command_stdin(r);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			raise(SIGSTOP);
		exec_command(r->o->target_cmd);
	}
	while (waitpid(pid, &st, WUNTRACED) < 0 && errno == EINTR)
		;
	if (!WIFSTOPPED(st)) {
		fprintf(stderr, "staprun: the command '%s' ended before it "
			"started\n", r->o->target_cmd);
		return -1;
	}
	r->target = pid;
	r->target_traced = WSTOPSIG(st) == SIGTRAP;
	r->target_held = true;
	return 0;
}

static void target_release(struct run *r)
{
	if (!r->target_held)
		return;
	r->target_held = false;
	if (r->target_traced)
		ptrace(PTRACE_DETACH, r->target, NULL, NULL);
	else
		kill(r->target, SIGCONT);
}

/* A command that never ran is not left behind; one that runs is the
 * user's, and goes on.
 */
static void target_finish(struct run *r)
{
	if (!r->target || !r->target_held)
		return;
	kill(r->target, SIGKILL);
	while (waitpid(r->target, NULL, 0) < 0 && errno == EINTR)
		;
	r->target = 0;
	r->target_held = false;
}

static void reap(struct run *r)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (!WIFEXITED(st) && !WIFSIGNALED(st))
			continue;	/* a stop of the held command */
		if (pid != r->target) {
			if (r->nsystem > 0)
				r->nsystem--;
			continue;
		}
		if (r->o->verbose && WIFEXITED(st))
			fprintf(stderr, "staprun: the command exited with "
				"status %d\n", WEXITSTATUS(st));
		else if (r->o->verbose)
			fprintf(stderr, "staprun: the command was killed by "
				"signal %d\n", WTERMSIG(st));
		r->target = 0;
		r->target_held = false;
		request_exit(r);
	}
}

/* The output printed before system() comes before the command's. */
static void run_system(struct run *r, const char *cmd)
{
	pid_t pid;

	relay_drain(&r->relay);
	pid = fork();
	if (pid == 0) {
		child_signals(r);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "staprun: cannot run system(\"%s\"): %s\n",
			cmd, strerror(errno));
	else
		r->nsystem++;
}

static void wait_system(struct run *r)
{
	const struct timespec tick = { 0, 10 * 1000000L };
	int ms;

	for (ms = 0; r->nsystem > 0 && ms < SYSTEM_WAIT_MS; ms += 10) {
		reap(r);
		if (r->nsystem > 0)
			nanosleep(&tick, NULL);
	}
}

/* ---- Signals ----------------------------------------------------- */

/* Blocked and read from a signalfd: a signal never interrupts the
 * middle of a write to the module or the output.
 */
static int signals_setup(struct run *r)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t mask;
	size_t i;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGUSR2);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&mask, stop_signals[i]);
	if (sigprocmask(SIG_BLOCK, &mask, &r->oldmask) < 0) {
		perror("staprun: sigprocmask");
		return -1;
	}
	/* An ignored signal never reaches the signalfd: a shell starts
	 * background commands with SIGINT ignored, and kill -INT must
	 * still stop the script.  Blocked, the default kills nobody.
	 */
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &dfl, &r->oldact[i]);
	r->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r->sfd < 0) {
		perror("staprun: signalfd");
		child_signals(r);
		return -1;
	}
	/* A closed output pipe is an error to handle, not a death. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* The run is over: signals that came during the last steps (a second
 * SIGINT during the end probes, after the module's EXIT answer) were
 * counted or are still pending, and stay blocked.  Unblocking them
 * would let the default action of a pending SIGINT kill staprun
 * (status 130) after a run that ended normally; staprun exits right
 * after this.
 */
static void signals_restore(struct run *r)
{
	close(r->sfd);
	r->sfd = -1;
}

static void on_signal(struct run *r, int sig)
{
	if (sig == SIGCHLD) {
		reap(r);
		return;
	}
	if (sig == SIGUSR2) {
		relay_switch_file(&r->relay);
		return;
	}
	if (sig == SIGQUIT && r->o->action == STAPRUN_ATTACH &&
	    !r->exit_sent) {
		request_detach(r);
		return;
	}
	if (r->exit_sent) {
		if (++r->signals_after_exit >= GIVE_UP_SIGNALS) {
			fprintf(stderr, "staprun: no longer waiting for the "
				"module to stop\n");
			r->abandon = true;
			r->status = 1;
		}
		return;
	}
	if (r->o->verbose)
		fprintf(stderr, "staprun: %s: stopping the script\n",
			strsignal(sig));
	request_exit(r);
}

static void read_signals(struct run *r)
{
	struct signalfd_siginfo si;

	while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		on_signal(r, (int)si.ssi_signo);
}

/* ---- Messages from the module ------------------------------------ */

static void on_start(struct run *r, const struct ctl_msg *m)
{
	struct stp_msg_start_rc rc = { 0 };

	memcpy(&rc, m->payload, m->hdr.len < sizeof(rc) ? m->hdr.len :
						    sizeof(rc));
	/* A stop signal came during the registration, which stopped
	 * there and undid itself (the module checks staprun's pending
	 * signals): no probe is armed, and the signal, read next from
	 * the signalfd, is an ordinary stop.
	 */
	if (rc.rc == -EINTR) {
		if (r->o->verbose)
			fprintf(stderr, "staprun: the registration stopped "
				"for a signal\n");
		request_exit(r);
		return;
	}
	if (rc.rc < 0) {
		fprintf(stderr, "staprun: the module failed to start: %s\n",
			strerror(-rc.rc));
		r->status = 1;
		request_exit(r);
		return;
	}
	if (r->o->verbose)
		fprintf(stderr, "staprun: the script is running\n");
	if (r->exit_sent)
		return;
	if (r->o->action == STAPRUN_LOAD_DETACH) {
		request_detach(r);
		return;
	}
	daemon_ready(r);
	target_release(r);
	if (r->o->read_stdin)
		feed_start(&r->feed, r->o->module_name);
	if (r->o->time_limit) {
		clock_gettime(CLOCK_MONOTONIC, &r->deadline);
		r->deadline.tv_sec += r->o->time_limit;
		r->deadline_set = true;
	}
}

static void on_exit_reply(struct run *r, const struct ctl_msg *m)
{
	struct stp_msg_exit_rc e = { 0 };

	memcpy(&e, m->payload, m->hdr.len < sizeof(e) ? m->hdr.len :
						   sizeof(e));
	r->exit_seen = true;
	/* lost output is a failure too: the output is not what ran */
	if (e.failed || e.errors || e.lost)
		r->status = 1;
	if (r->o->verbose)
		fprintf(stderr, "staprun: the script stopped: %u errors, %u "
			"skipped probes, %llu bytes lost\n", e.errors,
			e.skipped, (unsigned long long)e.lost);
}

/* A warning or error of the script: on stderr, or while the live view
 * is up, in it and on stderr once it closes.
 */
static void message(struct run *r, const struct ctl_msg *m)
{
	if (r->mon && monitor_message(r->mon, m->payload, m->hdr.len))
		return;
	fwrite(m->payload, 1, m->hdr.len, stderr);
}

static void on_message(struct run *r, const struct ctl_msg *m)
{
	switch (m->hdr.type) {
	case STP_MSG_START:
		on_start(r, m);
		break;
	case STP_MSG_EXIT:
		on_exit_reply(r, m);
		break;
	case STP_MSG_REQUEST_EXIT:
		request_exit(r);
		break;
	case STP_MSG_WARNING:
		if (!r->o->no_warnings)
			message(r, m);
		break;
	case STP_MSG_ERROR:
		message(r, m);
		r->status = 1;
		break;
	case STP_MSG_SYSTEM:
		run_system(r, m->payload);
		break;
	case STP_MSG_SWITCH_FILE:
		relay_switch_file(&r->relay);
		break;
	default:
		break;		/* from a newer module: nothing to do */
	}
}

static void read_messages(struct run *r)
{
	struct ctl_msg m;
	int rc;

	while (!r->exit_seen && (rc = ctl_recv(r->ctl, &m)) == 0)
		on_message(r, &m);
	if (!r->exit_seen && rc != -EAGAIN) {
		fprintf(stderr, "staprun: lost the control channel: %s\n",
			strerror(-rc));
		r->abandon = true;
		r->status = 1;
	}
}

/* ---- The run ----------------------------------------------------- */

/* TRANSPORT from the module, the relay files, READY from us. */
static int handshake(struct run *r)
{
	struct stp_msg_ready ready = { .version = STP_MSG_VERSION };
	struct stp_msg_transport t;
	struct ctl_msg m;
	int rc;

	rc = ctl_recv_wait(r->ctl, &m, TRANSPORT_TIMEOUT_MS);
	if (rc || m.hdr.type != STP_MSG_TRANSPORT || m.hdr.len < sizeof(t)) {
		fprintf(stderr, "staprun: the module did not announce its "
			"transport: %s\n", rc ? strerror(-rc) :
			"unexpected message");
		return -1;
	}
	memcpy(&t, m.payload, sizeof(t));
	if (t.version != STP_MSG_VERSION) {
		fprintf(stderr, "staprun: the module speaks protocol version "
			"%u, this staprun %u: rebuild it with the matching "
			"stap\n", t.version, STP_MSG_VERSION);
		return -1;
	}
	if (r->o->verbose)
		fprintf(stderr, "staprun: relay buffers: %u x %u bytes per "
			"CPU%s\n", t.n_subbufs, t.subbuf_size,
			t.bulk ? ", bulk mode" : "");
	if (t.ncpus > MAX_POLL_CPUS)
		t.ncpus = MAX_POLL_CPUS;
	/* -L leaves the output in the module for a staprun -A */
	if (r->o->action != STAPRUN_LOAD_DETACH &&
	    relay_open(&r->relay, r->dir, (int)t.ncpus, t.bulk, t.flags,
		       r->o->output_file, r->o->stdout_closed,
		       r->o->rotate_mb, r->o->rotate_count))
		return -1;
	if (r->mon)
		monitor_init(r->mon, r->dir, r->o->module_name,
			     r->o->monitor_interval, (unsigned long long)
			     t.ncpus * t.n_subbufs * t.subbuf_size);
	rc = ctl_send(r->ctl, STP_MSG_READY, &ready, sizeof(ready));
	if (rc) {
		fprintf(stderr, "staprun: the module refused READY: %s\n",
			strerror(-rc));
		return -1;
	}
	return 0;
}

static void start(struct run *r)
{
	struct stp_msg_start s = { 0 };
	int err;

	if (r->o->target_cmd && target_start(r)) {
		r->status = 1;
		request_exit(r);
		return;
	}
	s.target = r->target ? r->target : (__s32)r->o->target_pid;
	if (r->mon)
		monitor_begin(r->mon);
	/* the view, when there is a terminal, takes what goes to stdout */
	if (r->mon && monitor_poll_fd(r->mon) >= 0) {
		r->relay.sink = monitor_output;
		r->relay.sink_ctx = r->mon;
	}
	if (r->o->verbose)
		fprintf(stderr, "staprun: starting the script (target %d)\n",
			s.target);
	err = ctl_send(r->ctl, STP_MSG_START, &s, sizeof(s));
	if (err) {
		fprintf(stderr, "staprun: the module refused START: %s\n",
			strerror(-err));
		r->status = 1;
		r->abandon = true;
	}
}

/* Milliseconds to the next poll: the read interval, or less when the
 * -T limit comes first (it is due when 0 is returned).
 */
static int poll_timeout(struct run *r)
{
	struct timespec now;
	long long ms;

	if (!r->deadline_set)
		return r->mon ? monitor_timeout(r->mon, READ_INTERVAL_MS) :
				READ_INTERVAL_MS;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (r->deadline.tv_sec - now.tv_sec) * 1000LL +
	     (r->deadline.tv_nsec - now.tv_nsec) / 1000000;
	if (ms <= 0)
		return 0;
	return ms < READ_INTERVAL_MS ? (int)ms : READ_INTERVAL_MS;
}

/* Until the module answers EXIT: output, messages, signals, -T. */
static void loop(struct run *r)
{
	struct pollfd fds[4 + MAX_POLL_CPUS];
	int n;

	fds[0].fd = r->ctl;
	fds[0].events = POLLIN;
	fds[1].fd = r->sfd;
	fds[1].events = POLLIN;
	fds[2].events = POLLIN;
	fds[3].events = POLLIN;
	n = 4 + relay_poll_fds(&r->relay, fds + 4, MAX_POLL_CPUS);
	while (!r->exit_seen && !r->abandon && !r->detached) {
		fds[2].fd = feed_poll_fd(&r->feed);
		fds[2].revents = 0;
		fds[3].fd = r->mon ? monitor_poll_fd(r->mon) : -1;
		fds[3].revents = 0;
		if (poll(fds, (nfds_t)n, poll_timeout(r)) < 0 &&
		    errno != EINTR) {
			perror("staprun: poll");
			r->abandon = true;
			r->status = 1;
			break;
		}
		/* the output failed, here or in run_system()'s drain */
		if (relay_read(&r->relay) < 0 || r->relay.broken)
			request_exit(r);
		read_messages(r);
		read_signals(r);
		if (fds[2].fd >= 0 && fds[2].revents)
			feed_read(&r->feed);
		if (fds[3].fd >= 0 && fds[3].revents &&
		    monitor_keys(r->mon) == MONITOR_QUIT)
			request_exit(r);
		if (r->mon)
			monitor_refresh(r->mon, false);
		if (r->deadline_set && !poll_timeout(r)) {
			r->deadline_set = false;
			if (r->o->verbose)
				fprintf(stderr, "staprun: time limit of %d s "
					"reached\n", r->o->time_limit);
			request_exit(r);
		}
	}
}

/* Between insertion and removal.  Closing the control file without
 * EXIT, on any failure here, makes the module stop itself.
 */
static void run_attached(struct run *r)
{
	if (modload_debugfs()) {
		r->status = 1;
		return;
	}
	snprintf(r->dir, sizeof(r->dir), "/sys/kernel/debug/%s/%s",
		 STP_DEBUGFS_DIR, r->o->module_name);
	r->ctl = ctl_open(r->dir, CTL_OPEN_TIMEOUT_MS);
	if (r->ctl < 0) {
		r->status = 1;
		return;
	}
	if (handshake(r) == 0) {
		r->handshaken = true;
		read_signals(r);	/* interrupted while loading? */
		/* -A: the session runs already, nothing to start */
		if (r->o->action == STAPRUN_ATTACH)
			daemon_ready(r);
		else if (!r->exit_sent)
			start(r);
		loop(r);
	} else {
		r->status = 1;
	}
	relay_drain(&r->relay);
	if (r->mon)
		monitor_end(r->mon);	/* the end probes' output follows */
	if (r->relay.broken)
		r->status = 1;	/* output lost: reported by relay.c */
	relay_close(&r->relay);
	close(r->ctl);
	r->ctl = -1;
}

/* -D: the parent waits until the child says the run is under way, then
 * prints the child's pid and exits 0; a child that fails before that
 * has printed why, and its status is the parent's.  Returns in the
 * child (-1 with the parent's end of the pipe in *fd), or the parent's
 * exit status.
 */
static int daemonize(int *fd)
{
	int p[2], st;
	pid_t pid;
	char c;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0) {
		perror("staprun: pipe");
		return 1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("staprun: fork");
		return 1;
	}
	if (pid == 0) {
		close(p[0]);
		setsid();
		*fd = p[1];
		return -1;
	}
	close(p[1]);
	do
		n = read(p[0], &c, 1);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == 1) {
		printf("%d\n", (int)pid);
		return fflush(stdout) ? 1 : 0;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int run_module(const struct staprun_options *o)
{
	struct run r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.daemon_fd = -1;
	if (o->daemon) {
		rc = daemonize(&r.daemon_fd);
		if (rc >= 0)
			return rc;
	}
	if (o->monitor) {
		r.mon = calloc(1, sizeof(*r.mon));
		if (!r.mon) {
			fputs("staprun: out of memory\n", stderr);
			return 1;
		}
	}
	r.ctl = -1;
	r.relay.out_fd = -1;
	r.feed.fd = -1;
	if (signals_setup(&r))
		return 1;
	if (o->action == STAPRUN_ATTACH || modload_insert(o) == 0) {
		run_attached(&r);
		target_finish(&r);
		r.exit_sent = true;	/* nothing more to ask the module */
		/* an attach that never got through leaves it as it was */
		if (!r.detached && (o->action != STAPRUN_ATTACH ||
				    r.handshaken) &&
		    modload_remove(o->module_name, o->verbose))
			r.status = 1;
		wait_system(&r);
	} else {
		r.status = 1;
	}
	feed_stop(&r.feed);
	signals_restore(&r);
	free(r.mon);
	return r.status;
}
