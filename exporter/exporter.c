/* exporter.c - tapir-exporter: serves the metrics of the scripts of a
 * directory to Prometheus over HTTP.  Each NAME.stp (run by stap) or
 * NAME.ko (a module built ahead with stap -p4 -m NAME, run by staprun)
 * starts on the first request for /NAME.stp or /NAME.ko and keeps
 * running; a request reads its /proc/systemtap/MODULE/__prometheus.
 * One thread, one poll() loop: connections, the children's stderr and
 * the signals (signalfd) are all file descriptors.
 */
#define _GNU_SOURCE
#include "http.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SCRIPTS 256
#define MAX_CONNS 64
#define MAX_LISTEN 4
/* The tail of a run's standard error kept for the error response. */
#define ERR_KEEP 8192
/* A metrics file larger than this is an error, not a response. */
#define METRICS_MAX (16 << 20)
/* A connection that sends no complete request for this long is closed. */
#define IDLE_MS 30000
/* After an answer that closes the connection, what the client still
 * sends is read for this long: closing a socket with unread data would
 * reset the connection and lose the answer.
 */
#define LINGER_MS 2000
/* How long the children have to stop (end probes) before SIGKILL. */
#define STOP_MS 30000
/* A restart waits 1 s after the first exit, twice as long after each
 * exit that follows a short run, at most 60 s.
 */
#define BACKOFF_MIN 1000
#define BACKOFF_MAX 60000
/* How often a starting script is checked for its metrics file. */
#define READY_POLL_MS 100

enum kind { KIND_STP, KIND_EXEC, KIND_KO };

struct script {
	char *name;		/* as in the URL: "syscalls.stp" */
	char *path;
	char module[64];	/* the module's name, its procfs directory */
	enum kind kind;
	bool autostart;		/* "autostart" in the name: at once, always */
	pid_t pid;		/* the running child, or 0 */
	int errfd;		/* its standard error, or -1 */
	bool ready;		/* its metrics file appeared in this run */
	bool ever_ready;	/* ... in the last run (before it exited) */
	bool stopping;		/* we asked it to stop */
	bool restart;		/* start again at restart_at */
	char err[ERR_KEEP];	/* the tail of this run's stderr */
	size_t errlen;
	char *failure;		/* why the last run ended before its metrics */
	long long started, last_use, restart_at, backoff;
};

struct conn {
	int fd;
	char in[HTTP_HEAD_MAX];
	size_t inlen;
	char *out;
	size_t outlen, outoff;
	bool close_after;	/* close once out is written */
	bool draining;		/* written and shut down: reading to the end */
	struct script *wait;	/* the request waits for this script */
	struct http_req req;
	long long deadline;	/* of the wait, or of an idle connection */
};

static struct {
	const char *dir, *addr, *port, *stap, *staprun, *procfs;
	long long keepalive_ms, wait_ms;
	char workdir[PATH_MAX];
	struct script scripts[MAX_SCRIPTS];
	int nscripts;
	struct conn conns[MAX_CONNS];
	int listen_fd[MAX_LISTEN];
	int nlisten;
	int sig_fd;
	bool quit;
} ex = {
	.dir = SYSCONFDIR "/tapir-exporter",
	.port = "9900",
	.stap = "stap",
	.staprun = "staprun",
	.procfs = "/proc/systemtap",
	.wait_ms = 5000,
};

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("tapir-exporter: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		say("out of memory");
		exit(1);
	}
	return p;
}

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		say("out of memory");
		exit(1);
	}
	return s;
}

/* ------------------------------------------------------------ scripts */

static int by_name(const void *a, const void *b)
{
	const struct script *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* A .ko file's module name is its file name (stap -p4 -m NAME writes
 * NAME.ko); a script gets a name of ours, unique to this exporter.
 */
static int add_script(const char *name, int index)
{
	struct script *s = &ex.scripts[ex.nscripts];
	size_t n = strlen(name);
	struct stat st;
	char *path = xasprintf("%s/%s", ex.dir, name);
	bool ko = n > 3 && !strcmp(name + n - 3, ".ko");

	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		free(path);
		return 0;
	}
	if (ex.nscripts == MAX_SCRIPTS) {
		say("%s: more than %d scripts, ignoring %s", ex.dir,
		    MAX_SCRIPTS, name);
		free(path);
		return 0;
	}
	memset(s, 0, sizeof(*s));
	s->name = xasprintf("%s", name);
	s->path = path;
	s->errfd = -1;
	s->backoff = BACKOFF_MIN;
	s->autostart = strstr(name, "autostart") != NULL;
	s->restart = s->autostart;	/* at once */
	if (ko) {
		s->kind = KIND_KO;
		if (n - 3 >= sizeof(s->module) || n - 3 > 55) {
			say("%s: the module name is too long", name);
			free(s->name);
			free(path);
			return 0;
		}
		memcpy(s->module, name, n - 3);
	} else {
		s->kind = access(path, X_OK) ? KIND_STP : KIND_EXEC;
		snprintf(s->module, sizeof(s->module), "tapir_exporter_%d_%d",
			 (int)getpid(), index);
	}
	ex.nscripts++;
	return 0;
}

static int scan_scripts(void)
{
	struct dirent *d;
	DIR *dir = opendir(ex.dir);
	int index = 0;

	if (!dir) {
		say("cannot open the script directory %s: %s", ex.dir,
		    strerror(errno));
		return -1;
	}
	while ((d = readdir(dir))) {
		size_t n = strlen(d->d_name);

		if (d->d_name[0] == '.' || n < 4)
			continue;
		if (strcmp(d->d_name + n - 4, ".stp") &&
		    strcmp(d->d_name + n - 3, ".ko"))
			continue;
		add_script(d->d_name, ++index);
	}
	closedir(dir);
	qsort(ex.scripts, (size_t)ex.nscripts, sizeof(ex.scripts[0]),
	      by_name);
	say("%d script%s in %s", ex.nscripts, ex.nscripts == 1 ? "" : "s",
	    ex.dir);
	return 0;
}

static struct script *find_script(const char *name)
{
	int i;

	for (i = 0; i < ex.nscripts; i++)
		if (!strcmp(ex.scripts[i].name, name))
			return &ex.scripts[i];
	return NULL;
}

/* The child: its own process group (so that a stop reaches stap's
 * compiler and staprun too), stdin from /dev/null, stderr to the pipe,
 * the signals we block unblocked again.
 */
static void exec_child(struct script *s, int errw)
{
	sigset_t none;
	char *argv[6];
	int fd, i = 0;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != STDIN_FILENO) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	dup2(errw, STDERR_FILENO);
	if (chdir(ex.workdir))
		fprintf(stderr, "cannot enter %s: %s\n", ex.workdir,
			strerror(errno));
	switch (s->kind) {
	case KIND_STP:
		argv[i++] = (char *)ex.stap;
		argv[i++] = "-m";
		argv[i++] = s->module;
		argv[i++] = s->path;
		break;
	case KIND_EXEC:
		argv[i++] = s->path;
		argv[i++] = "-m";
		argv[i++] = s->module;
		break;
	case KIND_KO:
		argv[i++] = (char *)ex.staprun;
		argv[i++] = s->path;
		break;
	}
	argv[i] = NULL;
	execvp(argv[0], argv);
	fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int start_script(struct script *s, long long now)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		free(s->failure);
		s->failure = xasprintf("%s: cannot make a pipe: %s\n",
				       s->name, strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		free(s->failure);
		s->failure = xasprintf("%s: cannot fork: %s\n", s->name,
				       strerror(errno));
		return -1;
	}
	if (pid == 0)
		exec_child(s, p[1]);
	setpgid(pid, pid);
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	s->pid = pid;
	s->errfd = p[0];
	s->errlen = 0;
	s->ready = false;
	s->stopping = false;
	s->restart = false;
	s->started = now;
	say("%s: started (pid %d, module %s)", s->name, (int)pid, s->module);
	return 0;
}

static void stop_script(struct script *s, int sig)
{
	if (!s->pid)
		return;
	s->stopping = true;
	s->restart = false;
	kill(-s->pid, sig);
}

/* The child's stderr: kept (the tail of it) and copied to ours.  At its
 * end (the child, or a program it left running, closed it) the pipe is
 * closed here, not polled again.
 */
static void drain_stderr(struct script *s)
{
	char buf[ERR_KEEP / 2];
	ssize_t n;
	size_t k;

	while (s->errfd >= 0) {
		n = read(s->errfd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || errno != EAGAIN) {
				close(s->errfd);
				s->errfd = -1;
			}
			break;
		}
		k = (size_t)n;
		if (fwrite(buf, 1, k, stderr) != k)
			clearerr(stderr);
		if (s->errlen + k > ERR_KEEP) {
			size_t drop = s->errlen + k - ERR_KEEP;

			memmove(s->err, s->err + drop, s->errlen - drop);
			s->errlen -= drop;
		}
		memcpy(s->err + s->errlen, buf, k);
		s->errlen += k;
	}
}

static void describe_status(char *buf, size_t size, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d",
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "was killed by signal %d",
			 WTERMSIG(status));
	else
		snprintf(buf, size, "ended (wait status %d)", status);
}

/* A run ended.  Before its metrics appeared, it failed (a script that
 * does not build, a module that does not load): what it said becomes
 * the error of the next requests, and only an autostart script is
 * started again by itself; a script that did run is restarted.
 */
static void script_exited(struct script *s, int status, long long now)
{
	char how[64], *ko;

	drain_stderr(s);
	if (s->errfd >= 0) {
		/* what a program it left running may still write is lost */
		close(s->errfd);
		s->errfd = -1;
	}
	s->pid = 0;
	describe_status(how, sizeof(how), status);
	say("%s: %s", s->name, how);
	if (s->kind != KIND_KO) {
		ko = xasprintf("%s/%s.ko", ex.workdir, s->module);
		unlink(ko);
		free(ko);
	}
	s->ever_ready = s->ready;
	s->ready = false;
	if (s->stopping) {
		s->stopping = false;
		return;
	}
	if (!s->ever_ready) {
		free(s->failure);
		s->failure = xasprintf("%s: %s before its metrics appeared%s\n"
				       "%.*s", s->name, how,
				       s->errlen ? ":" : "", (int)s->errlen,
				       s->err);
	}
	if (now - s->started >= BACKOFF_MAX)
		s->backoff = BACKOFF_MIN;
	s->restart_at = now + s->backoff;
	s->backoff = s->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX :
		     s->backoff * 2;
	s->restart = s->ever_ready || s->autostart;
}

static void reap(long long now)
{
	int status, i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < ex.nscripts; i++)
			if (ex.scripts[i].pid == pid)
				script_exited(&ex.scripts[i], status, now);
	}
}

static char *metrics_path(const struct script *s)
{
	return xasprintf("%s/%s/__prometheus", ex.procfs, s->module);
}

/* The metrics, read whole.  Returns the length, or -errno. */
static long read_metrics(const struct script *s, char **out)
{
	char *path = metrics_path(s), *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	free(path);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 131072;
			if (cap > METRICS_MAX + 1) {
				err = -EFBIG;
				break;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	if (!buf)
		buf = xmalloc(2);
	/* the text format ends every line with a line feed */
	if (len && buf[len - 1] != '\n')
		buf[len++] = '\n';
	*out = buf;
	return (long)len;
}

/* ---------------------------------------------------------- responses */

static void respond(struct conn *c, int status, const char *extra,
		    const char *body, size_t len)
{
	bool keep = c->req.keep_alive && !c->close_after;

	free(c->out);
	c->out = http_response(status, extra, body, len, c->req.head, keep,
			       &c->outlen);
	c->outoff = 0;
	c->wait = NULL;
	if (!keep)
		c->close_after = true;
	if (!c->out) {
		say("out of memory for a response");
		c->close_after = true;
	}
}

static void respond_text(struct conn *c, int status, const char *extra,
			 const char *text)
{
	respond(c, status, extra, text, strlen(text));
}

static void respond_index(struct conn *c)
{
	size_t len = 0, off = 0;
	char *body;
	int i;

	for (i = 0; i < ex.nscripts; i++)
		len += strlen(ex.scripts[i].name) + 2;
	body = xmalloc(len + 1);
	for (i = 0; i < ex.nscripts; i++)
		off += (size_t)sprintf(body + off, "/%s\n",
				       ex.scripts[i].name);
	respond(c, 200, NULL, body, off);
	free(body);
}

static void respond_unready(struct conn *c, struct script *s);

/* Serves the metrics if they are there; false if not yet. */
static bool try_metrics(struct conn *c, struct script *s)
{
	char *buf = NULL, *msg;
	long n = read_metrics(s, &buf);

	if (n == -ENOENT && s->pid)
		return false;
	if (n == -ENOENT) {
		respond_unready(c, s);
		return true;
	}
	if (n < 0) {
		msg = xasprintf("%s: cannot read %s/%s/__prometheus: %s\n",
				s->name, ex.procfs, s->module,
				strerror((int)-n));
		respond_text(c, 500, NULL, msg);
		free(msg);
		return true;
	}
	if (!s->ready) {
		s->ready = true;
		free(s->failure);
		s->failure = NULL;
	}
	respond(c, 200, NULL, buf, (size_t)n);
	free(buf);
	return true;
}

/* The answer for a script that has no metrics to give now. */
static void respond_unready(struct conn *c, struct script *s)
{
	char *msg;

	if (s->failure) {
		respond_text(c, 500, NULL, s->failure);
		return;
	}
	msg = xasprintf("%s: %s, try again later\n", s->name,
			s->pid ? "starting" : "restarting");
	respond_text(c, 503, "Retry-After: 5\r\n", msg);
	free(msg);
}

static void serve_script(struct conn *c, struct script *s, long long now)
{
	s->last_use = now;
	if (!s->pid) {
		if (s->failure && !s->restart && now < s->restart_at) {
			respond_text(c, 500, NULL, s->failure);
			return;
		}
		if (start_script(s, now) < 0) {
			respond_text(c, 500, NULL, s->failure);
			return;
		}
	}
	if (try_metrics(c, s))
		return;
	c->wait = s;
	c->deadline = now + ex.wait_ms;
}

static void dispatch(struct conn *c, long long now)
{
	struct script *s;
	char *msg;

	if (!strcmp(c->req.path, "/")) {
		respond_index(c);
		return;
	}
	s = find_script(c->req.path + 1);
	if (!s) {
		msg = xasprintf("no script %s in %s\n", c->req.path + 1,
				ex.dir);
		respond_text(c, 404, NULL, msg);
		free(msg);
		return;
	}
	serve_script(c, s, now);
}

/* -------------------------------------------------------- connections */

static void conn_close(struct conn *c)
{
	close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Parses what has come in; a complete request is answered (or parked
 * waiting for its script).
 */
static void conn_parse(struct conn *c, long long now)
{
	int n;

	if (c->out || c->wait || c->draining || !c->inlen)
		return;
	memset(&c->req, 0, sizeof(c->req));
	n = http_parse(c->in, c->inlen, &c->req);
	if (n == 0) {
		if (c->inlen == sizeof(c->in)) {
			c->close_after = true;
			respond_text(c, 431, NULL, "request head too large\n");
		}
		return;
	}
	if (n < 0) {
		c->close_after = true;
		respond_text(c, -n, NULL, -n == 405 ?
			     "only GET and HEAD are served\n" :
			     "bad request\n");
		return;
	}
	memmove(c->in, c->in + n, c->inlen - (size_t)n);
	c->inlen -= (size_t)n;
	dispatch(c, now);
}

static void conn_drain(struct conn *c)
{
	char junk[4096];
	ssize_t n = read(c->fd, junk, sizeof(junk));

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		conn_close(c);
}

static void conn_read(struct conn *c, long long now)
{
	ssize_t n;

	if (c->draining) {
		conn_drain(c);
		return;
	}
	n = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_close(c);
		return;
	}
	if (n > 0) {
		c->inlen += (size_t)n;
		c->deadline = now + IDLE_MS;
	}
	conn_parse(c, now);
}

static void conn_write(struct conn *c, long long now)
{
	ssize_t n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff,
			 MSG_NOSIGNAL);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		conn_close(c);
		return;
	}
	c->outoff += (size_t)n;
	if (c->outoff < c->outlen)
		return;
	free(c->out);
	c->out = NULL;
	if (c->close_after) {
		shutdown(c->fd, SHUT_WR);
		c->draining = true;
		c->deadline = now + LINGER_MS;
		return;
	}
	c->deadline = now + IDLE_MS;
	conn_parse(c, now);	/* a pipelined request */
}

static void accept_all(int lfd, long long now)
{
	struct conn *c;
	int fd, i;

	while ((fd = accept4(lfd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		c = NULL;
		for (i = 0; i < MAX_CONNS && !c; i++)
			if (ex.conns[i].fd < 0)
				c = &ex.conns[i];
		if (!c) {
			static const char busy[] = "HTTP/1.1 503 Service "
				"Unavailable\r\nContent-Length: 0\r\n"
				"Connection: close\r\n\r\n";

			if (send(fd, busy, sizeof(busy) - 1,
				 MSG_NOSIGNAL) < 0) {
				/* nothing more to do for it */
			}
			close(fd);
			continue;
		}
		c->fd = fd;
		c->deadline = now + IDLE_MS;
	}
}

/* --------------------------------------------------------------- loop */

static long long min_ll(long long a, long long b)
{
	return a < 0 || (b >= 0 && b < a) ? b : a;
}

/* Waits that ended, restarts and keepalive stops that are due.  Returns
 * the time of the next such event, or -1.
 */
static long long tick(long long now)
{
	long long next = -1;
	struct script *s;
	struct conn *c;
	struct stat st;
	char *path;
	int i;

	for (i = 0; i < ex.nscripts; i++) {
		s = &ex.scripts[i];
		if (s->pid && !s->ready && !s->stopping) {
			path = metrics_path(s);
			if (!stat(path, &st)) {
				s->ready = true;
				free(s->failure);
				s->failure = NULL;
				say("%s: metrics at %s", s->name, path);
			} else {
				next = min_ll(next, now + READY_POLL_MS);
			}
			free(path);
		}
		if (!s->pid && s->restart && !s->autostart &&
		    ex.keepalive_ms > 0 &&
		    now - s->last_use >= ex.keepalive_ms)
			s->restart = false;
		if (!s->pid && s->restart) {
			if (now >= s->restart_at)
				start_script(s, now);
			else
				next = min_ll(next, s->restart_at);
		}
		if (s->pid && !s->autostart && !s->stopping &&
		    ex.keepalive_ms > 0) {
			if (now - s->last_use >= ex.keepalive_ms) {
				say("%s: unused for %lld s, stopping", s->name,
				    ex.keepalive_ms / 1000);
				stop_script(s, SIGTERM);
			} else {
				next = min_ll(next,
					      s->last_use + ex.keepalive_ms);
			}
		}
	}
	for (i = 0; i < MAX_CONNS; i++) {
		c = &ex.conns[i];
		if (c->fd < 0)
			continue;
		if (c->wait) {
			if (try_metrics(c, c->wait))
				continue;
			if (!c->wait->pid || now >= c->deadline) {
				respond_unready(c, c->wait);
				continue;
			}
			next = min_ll(next, now + READY_POLL_MS);
		} else if (!c->out) {
			if (now >= c->deadline) {
				conn_close(c);
				continue;
			}
			next = min_ll(next, c->deadline);
		}
	}
	return next;
}

static void on_signals(long long now)
{
	struct signalfd_siginfo si;

	while (read(ex.sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			reap(now);
		else
			ex.quit = true;
	}
}

/* What each entry of the poll set stands for. */
enum slot { SLOT_SIGNALS, SLOT_LISTEN, SLOT_STDERR, SLOT_CONN };
struct owner {
	enum slot slot;
	int index;
};

#define POLL_MAX (1 + MAX_LISTEN + MAX_SCRIPTS + MAX_CONNS)

static int add_fd(struct pollfd *pfd, struct owner *who, int n, int fd,
		  short events, enum slot slot, int index)
{
	pfd[n] = (struct pollfd){ .fd = fd, .events = events };
	who[n] = (struct owner){ .slot = slot, .index = index };
	return n + 1;
}

static int build_pollfds(struct pollfd *pfd, struct owner *who)
{
	struct conn *c;
	int n = 0, i;

	n = add_fd(pfd, who, n, ex.sig_fd, POLLIN, SLOT_SIGNALS, 0);
	for (i = 0; i < ex.nlisten; i++)
		n = add_fd(pfd, who, n, ex.listen_fd[i], POLLIN,
			   SLOT_LISTEN, i);
	for (i = 0; i < ex.nscripts; i++)
		if (ex.scripts[i].errfd >= 0)
			n = add_fd(pfd, who, n, ex.scripts[i].errfd, POLLIN,
				   SLOT_STDERR, i);
	for (i = 0; i < MAX_CONNS; i++) {
		c = &ex.conns[i];
		if (c->fd >= 0 && (!c->wait || c->out))
			n = add_fd(pfd, who, n, c->fd,
				   c->out ? POLLOUT : POLLIN, SLOT_CONN, i);
	}
	return n;
}

static void handle_events(struct pollfd *pfd, struct owner *who, int n,
			  long long now)
{
	struct conn *c;
	int i;

	for (i = 0; i < n; i++) {
		if (!pfd[i].revents)
			continue;
		switch (who[i].slot) {
		case SLOT_SIGNALS:
			on_signals(now);
			break;
		case SLOT_LISTEN:
			accept_all(pfd[i].fd, now);
			break;
		case SLOT_STDERR:
			drain_stderr(&ex.scripts[who[i].index]);
			break;
		case SLOT_CONN:
			c = &ex.conns[who[i].index];
			if (c->fd != pfd[i].fd)
				break;
			if (c->out)
				conn_write(c, now);
			else
				conn_read(c, now);
			break;
		}
	}
}

static void serve(void)
{
	struct pollfd pfd[POLL_MAX];
	struct owner who[POLL_MAX];
	long long now, next;
	int n, timeout;

	while (!ex.quit) {
		now = now_ms();
		next = tick(now);
		n = build_pollfds(pfd, who);
		timeout = next < 0 ? -1 :
			  next <= now ? 0 : (int)(next - now);
		if (poll(pfd, (nfds_t)n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			say("poll: %s", strerror(errno));
			return;
		}
		handle_events(pfd, who, n, now_ms());
	}
}

/* At exit: every script stops with its end probes; whatever has not
 * stopped after STOP_MS is killed.
 */
static void stop_all(void)
{
	long long t0 = now_ms();
	bool any = true, killed = false;
	int i;

	for (i = 0; i < ex.nscripts; i++)
		stop_script(&ex.scripts[i], SIGTERM);
	while (any) {
		any = false;
		reap(now_ms());
		for (i = 0; i < ex.nscripts; i++) {
			drain_stderr(&ex.scripts[i]);
			any |= ex.scripts[i].pid != 0;
		}
		if (!any)
			break;
		if (!killed && now_ms() - t0 >= STOP_MS) {
			for (i = 0; i < ex.nscripts; i++)
				stop_script(&ex.scripts[i], SIGKILL);
			killed = true;
		}
		poll(NULL, 0, 50);
	}
}

/* ------------------------------------------------------------- set-up */

static int listen_on(void)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE }, *res, *ai;
	int fd, on = 1, rc, err = 0;

	rc = getaddrinfo(ex.addr, ex.port, &hints, &res);
	if (rc) {
		say("cannot listen on %s port %s: %s",
		    ex.addr ? ex.addr : "any address", ex.port,
		    gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai && ex.nlisten < MAX_LISTEN; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
			    SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on,
				   sizeof(on));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) ||
		    listen(fd, 64)) {
			err = errno;
			close(fd);
			continue;
		}
		ex.listen_fd[ex.nlisten++] = fd;
	}
	freeaddrinfo(res);
	if (!ex.nlisten) {
		say("cannot listen on %s port %s: %s",
		    ex.addr ? ex.addr : "any address", ex.port,
		    strerror(err));
		return -1;
	}
	say("listening on %s port %s", ex.addr ? ex.addr : "any address",
	    ex.port);
	return 0;
}

static int setup_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	/* a client gone mid-response is an error of send(), not a signal */
	signal(SIGPIPE, SIG_IGN);
	ex.sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return ex.sig_fd < 0 ? -1 : 0;
}

static int make_workdir(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(ex.workdir, sizeof(ex.workdir), "%s/tapir-exporter.XXXXXX",
		 t && *t ? t : "/tmp");
	if (!mkdtemp(ex.workdir)) {
		say("cannot make a working directory %s: %s", ex.workdir,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* The working directory holds only what stap -m left; it goes. */
static void remove_workdir(void)
{
	struct dirent *d;
	DIR *dir = opendir(ex.workdir);
	char *p;

	if (dir) {
		while ((d = readdir(dir))) {
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			p = xasprintf("%s/%s", ex.workdir, d->d_name);
			unlink(p);
			free(p);
		}
		closedir(dir);
	}
	rmdir(ex.workdir);
}

static void usage(FILE *f)
{
	fputs("Usage: tapir-exporter [OPTIONS]\n"
	      "Serve the Prometheus metrics of the scripts of a directory "
	      "over HTTP.\n\n"
	      "  -p, --port PORT        TCP port (default 9900)\n"
	      "  -a, --address ADDR     listen on ADDR only (default: all)\n"
	      "  -s, --scripts DIR      the scripts (NAME.stp) and modules\n"
	      "                         (NAME.ko) (default "
	      SYSCONFDIR "/tapir-exporter)\n"
	      "  -k, --keepalive SECS   stop a script unused for SECS\n"
	      "  -w, --wait SECS        how long a request waits for a\n"
	      "                         starting script (default 5)\n"
	      "      --stap PATH        the stap to run NAME.stp with\n"
	      "      --staprun PATH     the staprun to run NAME.ko with\n"
	      "      --procfs DIR       where the modules' procfs files are\n"
	      "                         (default /proc/systemtap)\n"
	      "  -V, --version          print the version and exit\n"
	      "  -h, --help             print this help and exit\n", f);
}

static bool seconds_arg(const char *arg, long long *ms)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > 86400 * 365)
		return false;
	*ms = (long long)v * 1000;
	return true;
}

static int parse_args(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "address", required_argument, NULL, 'a' },
		{ "scripts", required_argument, NULL, 's' },
		{ "keepalive", required_argument, NULL, 'k' },
		{ "wait", required_argument, NULL, 'w' },
		{ "stap", required_argument, NULL, 'S' },
		{ "staprun", required_argument, NULL, 'R' },
		{ "procfs", required_argument, NULL, 'P' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "p:a:s:k:w:Vh", longs,
				NULL)) != -1) {
		switch (c) {
		case 'p': ex.port = optarg; break;
		case 'a': ex.addr = optarg; break;
		case 's': ex.dir = optarg; break;
		case 'S': ex.stap = optarg; break;
		case 'R': ex.staprun = optarg; break;
		case 'P': ex.procfs = optarg; break;
		case 'k':
			if (!seconds_arg(optarg, &ex.keepalive_ms)) {
				say("invalid number of seconds '%s' for -k",
				    optarg);
				return 2;
			}
			break;
		case 'w':
			if (!seconds_arg(optarg, &ex.wait_ms)) {
				say("invalid number of seconds '%s' for -w",
				    optarg);
				return 2;
			}
			break;
		case 'V':
			printf("tapir-exporter (tapir) %s\n", TAPIR_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		say("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	return -1;
}

/* The children run in the working directory: a relative path given
 * here must name the same file there.
 */
static const char *absolute(const char *path, char *buf)
{
	if (path[0] == '/' || !strchr(path, '/') || !realpath(path, buf))
		return path;
	return buf;
}

int main(int argc, char **argv)
{
	static char dir[PATH_MAX], stap[PATH_MAX], staprun[PATH_MAX];
	int rc = parse_args(argc, argv), i;

	if (rc >= 0)
		return rc;
	if (ex.dir[0] != '/' && realpath(ex.dir, dir))
		ex.dir = dir;
	ex.stap = absolute(ex.stap, stap);
	ex.staprun = absolute(ex.staprun, staprun);
	for (i = 0; i < MAX_CONNS; i++)
		ex.conns[i].fd = -1;
	setvbuf(stderr, NULL, _IOLBF, 0);
	if (scan_scripts() < 0 || setup_signals() < 0)
		return 1;
	if (listen_on() < 0)
		return 1;
	if (make_workdir() < 0)
		return 1;
	serve();
	say("stopping");
	stop_all();
	remove_workdir();
	for (i = 0; i < MAX_CONNS; i++)
		if (ex.conns[i].fd >= 0)
			conn_close(&ex.conns[i]);
	for (i = 0; i < ex.nlisten; i++)
		close(ex.listen_fd[i]);
	for (i = 0; i < ex.nscripts; i++) {
		free(ex.scripts[i].name);
		free(ex.scripts[i].path);
		free(ex.scripts[i].failure);
	}
	close(ex.sig_fd);
	return 0;
}
