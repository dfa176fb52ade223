/* remote.c - pass 5 on other machines (--remote).  Each host is asked
 * its kernel release and architecture over ssh; the script is built
 * once per release by a forked translator; each host's ssh session then
 * takes the module on its standard input and runs staprun.  Output comes
 * back line by line ("N: " in front with --remote-prefix).  A signal
 * closes each session's standard input, on which the remote shell stops
 * staprun as Ctrl-C would there.  direct:// runs the same shell commands
 * through sh here.
 */
#define _GNU_SOURCE
#include "cmdline.h"
#include "diag.h"
#include "driver.h"
#include "kernel.h"
#include "remote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* An unfinished line longer than this is relayed as it is. */
#define LINE_MAX_HELD 65536
/* What an answer to the question of the kernel may hold. */
#define ASK_MAX 4096

enum host_state {
	H_ASK,		/* ssh: uname -r -m, and where staprun is */
	H_BUILD,	/* waiting for the module of its release */
	H_RUN,		/* ssh: the module in, staprun, the output out */
	H_DONE,
};

struct build {
	const char *release;
	pid_t pid;		/* 0 before it starts */
	int fd;			/* the child's answer: "KO\nTMP\nNAME\n" */
	struct strbuf answer;
	const char *ko;		/* NULL unless built */
	const char *tmp;
	const char *name;	/* the module's name: NAME.ko there */
	int rc;
	bool done;
};

/* One output stream of a host's child. */
struct stream {
	int fd;			/* -1 at EOF */
	struct strbuf text;	/* H_ASK: all of it; H_RUN: an unfinished line */
	FILE *out;
};

struct host {
	int index;
	const char *url;
	struct remote_url u;
	enum host_state state;
	pid_t pid;
	struct stream out, err;
	int ctl;		/* the child's stdin: the module, EOF = stop */
	char *ko_data;
	size_t ko_len, ko_off;
	const char *release, *staprun;
	struct build *build;
	int status;
	bool interrupted;
};

struct remote {
	struct session *s;
	struct host *hosts;
	int nhosts;
	struct build *builds;
	int nbuilds;
	struct vec ssh;		/* the ssh command and its options */
	int stops;		/* stop signals so far */
	bool line_mode;		/* relay whole lines */
};

static int sig_fds[2] = { -1, -1 };
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void on_stop_signal(int sig)
{
	unsigned char c = (unsigned char)sig;
	int saved = errno;

	if (write(sig_fds[1], &c, 1) < 0)
		errno = saved;	/* a full pipe has a stop pending already */
	errno = saved;
}

static void set_signals(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &sa, NULL);
	sa.sa_handler = handler == SIG_DFL ? SIG_DFL : SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* A host's name in messages: its index and what the user wrote. */
static void host_error(struct remote *r, struct host *h, const char *fmt,
		       ...) __attribute__((format(printf, 3, 4)));
static void host_error(struct remote *r, struct host *h, const char *fmt,
		       ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = arena_vprintf(r->s->arena, fmt, ap);
	va_end(ap);
	diag_error_noloc(r->s, "remote host %d (%s): %s", h->index, h->url,
			 msg);
	h->status = 1;
	h->state = H_DONE;
}

/* The last line a child wrote on stderr, for a message. */
static const char *last_line(struct remote *r, struct stream *st)
{
	const char *t = st->text.buf ? st->text.buf : "";
	size_t n = st->text.len;
	const char *start;

	while (n && (t[n - 1] == '\n' || t[n - 1] == '\r'))
		n--;
	for (start = t + n; start > t && start[-1] != '\n'; start--)
		;
	if (start == t + n)
		return "no message";
	return arena_strndup(r->s->arena, start, (size_t)(t + n - start));
}

/* ------------------------------------------------------------------ */
/* Children                                                            */

/* Every descriptor of ours, in a forked translator that will not exec. */
static void close_all(struct remote *r)
{
	int i;

	for (i = 0; i < r->nhosts; i++) {
		struct host *h = &r->hosts[i];

		if (h->out.fd >= 0)
			close(h->out.fd);
		if (h->err.fd >= 0)
			close(h->err.fd);
		if (h->ctl >= 0)
			close(h->ctl);
	}
	for (i = 0; i < r->nbuilds; i++)
		if (r->builds[i].fd >= 0)
			close(r->builds[i].fd);
	close(sig_fds[0]);
	close(sig_fds[1]);
}

static void child_signals(void)
{
	sigset_t none;

	set_signals(SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* argv for CMD on host h: sh -c here, ssh there. */
static char **host_argv(struct remote *r, struct host *h, const char *cmd)
{
	struct arena *a = r->s->arena;
	struct vec v = { 0 };
	int i;

	if (h->u.direct) {
		vec_push(a, &v, "/bin/sh");
		vec_push(a, &v, "-c");
	} else {
		for (i = 0; i < r->ssh.n; i++)
			vec_push(a, &v, r->ssh.items[i]);
		/* no prompt: it could not be answered (see host_spawn);
		 * an option of TAPIR_SSH, given first, still wins
		 */
		vec_push(a, &v, "-o");
		vec_push(a, &v, "BatchMode=yes");
		vec_push(a, &v, "-T");	/* no terminal: stderr stays apart */
		if (h->u.user) {
			vec_push(a, &v, "-l");
			vec_push(a, &v, (void *)h->u.user);
		}
		if (h->u.port) {
			vec_push(a, &v, "-p");
			vec_push(a, &v, (void *)h->u.port);
		}
		vec_push(a, &v, "--");
		vec_push(a, &v, (void *)h->u.host);
	}
	vec_push(a, &v, (void *)cmd);
	vec_push(a, &v, NULL);
	return (char **)v.items;
}

static void nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Start CMD for h with its stdout and stderr piped here; with ctl, its
 * stdin too.  The child has a session of its own: a Ctrl-C at the
 * terminal reaches stap alone, which stops the hosts in order, and ssh
 * cannot stop on a prompt read from a terminal it does not own.
 */
static int host_spawn(struct remote *r, struct host *h, const char *cmd,
		      bool ctl)
{
	char **argv = host_argv(r, h, cmd);
	int out[2], err[2], in[2] = { -1, -1 };
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(err, O_CLOEXEC) < 0 || (ctl && pipe2(in, O_CLOEXEC) < 0)) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setsid();
		child_signals();
		dup2(ctl ? in[0] : null, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "stap: cannot run '%s': %s\n", argv[0],
			strerror(errno));
		_exit(255);
	}
	close(out[1]);
	close(err[1]);
	if (ctl)
		close(in[0]);
	if (pid < 0) {
		close(out[0]);
		close(err[0]);
		if (ctl)
			close(in[1]);
		return -1;
	}
	h->pid = pid;
	h->out.fd = out[0];
	h->err.fd = err[0];
	h->ctl = ctl ? in[1] : -1;
	nonblock(h->out.fd);
	nonblock(h->err.fd);
	if (ctl)
		nonblock(h->ctl);
	sb_free(&h->out.text);
	sb_free(&h->err.text);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Asking the hosts                                                    */

static const char *path_more =
	"PATH=$PATH:/usr/local/bin:/usr/local/sbin:/usr/sbin:/sbin";

static void host_ask(struct remote *r, struct host *h)
{
	const char *cmd = arena_printf(r->s->arena,
		"uname -r -m && { %s; command -v %s || echo -; }", path_more,
		sh_quote(r->s->arena, h->staprun));

	h->state = H_ASK;
	if (host_spawn(r, h, cmd, false) < 0)
		host_error(r, h, "cannot start ssh: %s", strerror(errno));
}

/* The build of a release; NULL for a second release under -m, whose
 * NAME.ko would replace the first one's.
 */
static struct build *build_for(struct remote *r, const char *release)
{
	int i;

	for (i = 0; i < r->nbuilds; i++)
		if (!strcmp(r->builds[i].release, release))
			return &r->builds[i];
	if (r->nbuilds && r->s->opt.module_name)
		return NULL;
	r->builds[r->nbuilds].release = release;
	r->builds[r->nbuilds].fd = -1;
	return &r->builds[r->nbuilds++];
}

static bool release_ok(const char *rel)
{
	const char *p;

	if (!*rel)
		return false;
	for (p = rel; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._+-~", *p))
			return false;
	return true;
}

static void run_start(struct remote *r, struct host *h);

/* h's release is built (or failed to): run there, or with -p1 to -p4
 * be done.
 */
static void host_built(struct remote *r, struct host *h)
{
	struct build *b = h->build;

	if (r->s->opt.last_pass < 5) {
		h->status = b->rc;
		h->state = H_DONE;
	} else if (!b->ko) {
		host_error(r, h, "no module for its kernel %s", b->release);
	} else {
		run_start(r, h);
	}
}

/* The release and staprun of the answer, once it is known good. */
static void host_known(struct remote *r, struct host *h, const char *rel,
		       const char *mach, const char *path)
{
	struct arena *a = r->s->arena;

	h->release = arena_strdup(a, rel);
	h->staprun = arena_strdup(a, path);
	if (r->s->opt.verbose)
		fprintf(stderr, "Remote host %d (%s): kernel %s %s, %s\n",
			h->index, h->url, h->release, mach, h->staprun);
	h->build = build_for(r, h->release);
	if (!h->build) {
		host_error(r, h, "-m %s: its kernel %s is not the release "
			   "%s.ko is built for (%s)", r->s->opt.module_name,
			   h->release, r->s->opt.module_name,
			   r->builds[0].release);
		return;
	}
	h->state = H_BUILD;
	if (h->build->done)
		host_built(r, h);
}

/* The answer: "RELEASE MACHINE\nSTAPRUN-PATH or -\n". */
static void ask_done(struct remote *r, struct host *h, int status)
{
	char rel[256], mach[64], path[1024];
	const char *t = h->out.text.buf ? h->out.text.buf : "";

	if (h->interrupted) {
		h->status = 1;
		h->state = H_DONE;
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 255 && !h->u.direct) {
		host_error(r, h, "cannot connect: %s", last_line(r, &h->err));
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    sscanf(t, "%255s %63s %1023s", rel, mach, path) != 3) {
		host_error(r, h, "cannot ask its kernel (uname -r -m): %s",
			   last_line(r, &h->err));
		return;
	}
	if (!release_ok(rel)) {
		host_error(r, h, "unexpected kernel release '%s'", rel);
		return;
	}
	if (strcmp(mach, "x86_64")) {
		host_error(r, h, "its architecture %s is not supported (only "
			   "x86_64)", mach);
		return;
	}
	if (!strcmp(path, "-")) {
		host_error(r, h, "no %s there; install staprun on it, or "
			   "name it with --remote-staprun", h->staprun);
		return;
	}
	host_known(r, h, rel, mach, path);
}

/* ------------------------------------------------------------------ */
/* Building                                                            */

/* In the forked translator: passes 1-4 (or up to -p) for one release. */
static int build_child(struct session *s, const char *release, int fd)
{
	int rc;

	/* the parent's errors are about other hosts */
	s->errors = 0;
	s->opt.kernel_release = release;
	s->opt.kernel_build_dir = NULL;
	if (s->opt.last_pass == 5) {
		s->opt.last_pass = 4;
		s->remote_build = true;
	}
	if (kernel_target_init(s) < 0)
		return 1;
	rc = driver_run_passes(s);
	if (rc == 0 && s->remote_build)
		dprintf(fd, "%s\n%s\n%s\n", s->built_ko,
			s->built_tmp ? s->built_tmp : "", s->built_name);
	fflush(stdout);
	fflush(stderr);
	return rc;
}

static void build_start(struct remote *r, struct build *b)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0) {
		b->done = true;
		b->rc = 1;
		return;
	}
	fflush(stdout);
	fflush(stderr);
	b->pid = fork();
	if (b->pid == 0) {
		close(fds[0]);
		close_all(r);
		child_signals();
		_exit(build_child(r->s, b->release, fds[1]));
	}
	close(fds[1]);
	if (b->pid < 0) {
		close(fds[0]);
		b->done = true;
		b->rc = 1;
		return;
	}
	b->fd = fds[0];
}

/* Builds start as their releases become known; -p1 to -p4 print, so
 * there one runs at a time.
 */
static void builds_start(struct remote *r)
{
	int i;

	if (r->stops)
		return;
	for (i = 0; i < r->nbuilds; i++) {
		struct build *b = &r->builds[i];

		if (!b->done && b->pid > 0 && r->s->opt.last_pass < 5)
			return;
	}
	for (i = 0; i < r->nbuilds; i++) {
		struct build *b = &r->builds[i];

		if (b->done || b->pid)
			continue;
		build_start(r, b);
		if (r->s->opt.last_pass < 5)
			return;
	}
}

static void build_done(struct remote *r, struct build *b)
{
	struct arena *a = r->s->arena;
	int status = 0, i;

	while (waitpid(b->pid, &status, 0) < 0 && errno == EINTR)
		;
	b->done = true;
	b->rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	if (b->rc == 0 && b->answer.buf) {
		const char *p = b->answer.buf;
		const char *f[3];
		int k;

		for (k = 0; k < 3; k++) {
			size_t len = strcspn(p, "\n");

			f[k] = arena_strndup(a, p, len);
			p += len + (p[len] == '\n');
		}
		if (*f[0] && *f[2]) {
			b->ko = f[0];
			b->tmp = f[1];
			b->name = f[2];
		}
	}
	sb_free(&b->answer);
	for (i = 0; i < r->nhosts; i++) {
		struct host *h = &r->hosts[i];

		if (h->state == H_BUILD && h->build == b)
			host_built(r, h);
	}
}

/* ------------------------------------------------------------------ */
/* Running                                                             */

/* The remote shell takes exactly the module's bytes from its stdin and
 * becomes staprun (exec: a foreground process, SIGINT not ignored).  A
 * watcher it leaves behind reads the rest of that stdin: when it ends
 * (stap closes it on a signal; so does a lost connection) it sends
 * SIGINT to staprun, which runs the end probes; when staprun is gone it
 * removes the module.
 */
static const char *run_command(struct remote *r, struct host *h)
{
	struct arena *a = r->s->arena;
	struct session *s = r->s;
	struct vec opts = { 0 };
	struct strbuf sb;
	const char *name = arena_printf(a, "%s.ko", h->build->name);
	const char *cmd;
	int i;

	driver_staprun_opts(s, &opts);
	sb_init(&sb);
	sb_printf(&sb, "%s; d=$(mktemp -d \"${TMPDIR:-/tmp}/tapir.XXXXXX\")"
		  " || exit 1; m=\"$d\"/%s; "
		  "dd of=\"$m\" bs=65536 count=%zu "
		  "iflag=fullblock,count_bytes 2>/dev/null; "
		  "if [ \"$(wc -c <\"$m\")\" -ne %zu ]; then "
		  "echo 'stap: the module did not arrive whole' >&2; "
		  "rm -rf \"$d\"; exit 1; fi; exec 3<&0; "
		  "{ read -r x <&3; kill -INT $$; "
		  "while kill -0 $$; do sleep 1; done; rm -rf \"$d\"; } "
		  "</dev/null >/dev/null 2>&1 & exec %s", path_more,
		  sh_quote(a, name), h->ko_len, h->ko_len,
		  sh_quote(a, h->staprun));
	for (i = 0; i < opts.n; i++)
		sb_printf(&sb, " %s", sh_quote(a, opts.items[i]));
	sb_puts(&sb, " \"$m\"");
	for (i = 0; i < s->opt.global_sets.n; i++)
		sb_printf(&sb, " %s", sh_quote(a, s->opt.global_sets.items[i]));
	/* remote_id() and remote_uri() */
	sb_printf(&sb, " _stp_remote_id=%d %s", h->index,
		  sh_quote(a, arena_printf(a, "_stp_remote_uri=%.255s", h->url)));
	sb_puts(&sb, " </dev/null 3<&-");
	cmd = arena_strdup(a, sb.buf);
	sb_free(&sb);
	return cmd;
}

static void run_start(struct remote *r, struct host *h)
{
	const char *ko = h->build->ko;

	if (r->stops) {
		h->status = 1;
		h->state = H_DONE;
		return;
	}
	h->ko_data = read_file(ko, &h->ko_len);
	if (!h->ko_data) {
		host_error(r, h, "cannot read '%s': %s", ko, strerror(errno));
		return;
	}
	h->ko_off = 0;
	h->state = H_RUN;
	if (host_spawn(r, h, run_command(r, h), true) < 0)
		host_error(r, h, "cannot start ssh: %s", strerror(errno));
}

static void ctl_close(struct host *h)
{
	if (h->ctl >= 0)
		close(h->ctl);
	h->ctl = -1;
}

static void ctl_write(struct host *h)
{
	ssize_t n = write(h->ctl, h->ko_data + h->ko_off,
			  h->ko_len - h->ko_off);

	if (n > 0)
		h->ko_off += (size_t)n;
	else if (n < 0 && errno != EAGAIN && errno != EINTR)
		ctl_close(h);	/* the session ended; its status tells */
}

static void run_done(struct remote *r, struct host *h, int status)
{
	ctl_close(h);
	free(h->ko_data);
	h->ko_data = NULL;
	h->state = H_DONE;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 255 &&
	    !h->u.direct) {
		host_error(r, h, "the ssh session failed: %s",
			   last_line(r, &h->err));
		return;
	}
	h->status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	if (!WIFEXITED(status))
		host_error(r, h, "ssh ended by signal %d", WTERMSIG(status));
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

static void put_line(struct remote *r, struct host *h, FILE *out,
		     const char *line, size_t n)
{
	if (r->s->opt.remote_prefix)
		fprintf(out, "%d: ", h->index);
	fwrite(line, 1, n, out);
}

static void relay(struct remote *r, struct host *h, struct stream *st,
		  const char *buf, size_t n)
{
	struct strbuf *t = &st->text;
	size_t start = 0;
	char *nl;

	if (!r->line_mode) {
		fwrite(buf, 1, n, st->out);
		fflush(st->out);
		return;
	}
	sb_putn(t, buf, n);
	while ((nl = memchr(t->buf + start, '\n', t->len - start))) {
		put_line(r, h, st->out, t->buf + start,
			 (size_t)(nl - t->buf) + 1 - start);
		start = (size_t)(nl - t->buf) + 1;
	}
	if (t->len - start >= LINE_MAX_HELD) {
		put_line(r, h, st->out, t->buf + start, t->len - start);
		start = t->len;
	}
	memmove(t->buf, t->buf + start, t->len - start);
	t->len -= start;
	fflush(st->out);
}

/* The end of a stream: an unfinished last line goes out as it is. */
static void stream_eof(struct remote *r, struct host *h, struct stream *st)
{
	close(st->fd);
	st->fd = -1;
	if (h->state == H_RUN && r->line_mode && st->text.len) {
		put_line(r, h, st->out, st->text.buf, st->text.len);
		st->text.len = 0;
		fflush(st->out);
	}
}

static void stream_read(struct remote *r, struct host *h, struct stream *st)
{
	char buf[16384];
	ssize_t n = read(st->fd, buf, sizeof(buf));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		stream_eof(r, h, st);
	} else if (h->state == H_RUN) {
		relay(r, h, st, buf, (size_t)n);
	} else if (st->text.len < ASK_MAX) {
		sb_putn(&st->text, buf, (size_t)n);
	}
	if (h->out.fd < 0 && h->err.fd < 0) {
		int status = 0;

		while (waitpid(h->pid, &status, 0) < 0 && errno == EINTR)
			;
		h->pid = 0;
		if (h->state == H_ASK)
			ask_done(r, h, status);
		else
			run_done(r, h, status);
	}
}

/* ------------------------------------------------------------------ */
/* The loop                                                            */

/* The first signal stops the scripts in order (their end probes run);
 * a second one ends the sessions.
 */
static void stop_all(struct remote *r)
{
	int i;

	r->stops++;
	for (i = 0; i < r->nhosts; i++) {
		struct host *h = &r->hosts[i];

		if (h->state == H_ASK) {
			h->interrupted = true;
			kill(-h->pid, SIGTERM);
		} else if (h->state == H_BUILD) {
			h->status = 1;
			h->state = H_DONE;
		} else if (h->state == H_RUN && r->stops == 1) {
			ctl_close(h);
		} else if (h->state == H_RUN) {
			kill(-h->pid, SIGTERM);
		}
	}
	for (i = 0; i < r->nbuilds; i++)
		if (r->builds[i].pid > 0 && !r->builds[i].done)
			kill(r->builds[i].pid, SIGTERM);
}

struct watch {
	struct host *h;
	struct stream *st;	/* NULL: h's ctl, or a build */
	struct build *b;
};

static bool finished(struct remote *r)
{
	int i;

	for (i = 0; i < r->nhosts; i++)
		if (r->hosts[i].state != H_DONE)
			return false;
	for (i = 0; i < r->nbuilds; i++)
		if (r->builds[i].pid > 0 && !r->builds[i].done)
			return false;
	return true;
}

static void watch_host(struct host *h, struct pollfd *p, struct watch *w,
		       int *n)
{
	struct stream *sts[] = { &h->out, &h->err };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sts); i++) {
		if (sts[i]->fd < 0)
			continue;
		p[*n] = (struct pollfd){ .fd = sts[i]->fd, .events = POLLIN };
		w[(*n)++] = (struct watch){ .h = h, .st = sts[i] };
	}
	if (h->ctl >= 0 && h->ko_off < h->ko_len) {
		p[*n] = (struct pollfd){ .fd = h->ctl, .events = POLLOUT };
		w[(*n)++] = (struct watch){ .h = h };
	}
}

static void build_read(struct remote *r, struct build *b)
{
	char buf[4096];
	ssize_t n = read(b->fd, buf, sizeof(buf));

	if (n < 0 && errno == EINTR)
		return;
	if (n > 0) {
		sb_putn(&b->answer, buf, (size_t)n);
		return;
	}
	close(b->fd);
	b->fd = -1;
	build_done(r, b);
}

static void loop(struct remote *r)
{
	int cap = 1 + 3 * r->nhosts + r->nbuilds + r->nhosts;
	struct pollfd *p = xmalloc(sizeof(*p) * (size_t)cap);
	struct watch *w = xmalloc(sizeof(*w) * (size_t)cap);
	int n, i;

	while (!finished(r)) {
		builds_start(r);
		n = 0;
		p[n] = (struct pollfd){ .fd = sig_fds[0], .events = POLLIN };
		w[n++] = (struct watch){ 0 };
		for (i = 0; i < r->nhosts; i++)
			watch_host(&r->hosts[i], p, w, &n);
		for (i = 0; i < r->nbuilds; i++) {
			if (r->builds[i].fd < 0)
				continue;
			p[n] = (struct pollfd){ .fd = r->builds[i].fd,
						.events = POLLIN };
			w[n++] = (struct watch){ .b = &r->builds[i] };
		}
		if (poll(p, (nfds_t)n, -1) < 0)
			continue;	/* EINTR: a signal, in the pipe now */
		for (i = 0; i < n; i++) {
			if (!p[i].revents)
				continue;
			if (i == 0) {
				unsigned char c;

				while (read(sig_fds[0], &c, 1) == 1)
					stop_all(r);
			} else if (w[i].b) {
				build_read(r, w[i].b);
			} else if (w[i].st && w[i].st->fd == p[i].fd) {
				stream_read(r, w[i].h, w[i].st);
			} else if (!w[i].st && w[i].h->ctl == p[i].fd) {
				ctl_write(w[i].h);
			}
		}
	}
	free(p);
	free(w);
}

/* ------------------------------------------------------------------ */
/* Set-up                                                              */

/* $TAPIR_SSH (default "ssh"), split on blanks: the client and any
 * options of the user's, e.g. "ssh -F FILE".
 */
static void ssh_command(struct remote *r)
{
	const char *env = getenv("TAPIR_SSH");
	const char *p = env && *env ? env : "ssh";
	size_t n;

	while (*p) {
		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n)
			vec_push(r->s->arena, &r->ssh,
				 arena_strndup(r->s->arena, p, n));
		p += n;
	}
}

/* A script on stdin is read once: every build would want it. */
static int read_stdin_script(struct session *s)
{
	struct strbuf sb;
	char chunk[4096];
	size_t n;

	if (!s->opt.script_file || strcmp(s->opt.script_file, "-"))
		return 0;
	sb_init(&sb);
	sb_putn(&sb, "", 0);
	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		sb_putn(&sb, chunk, n);
	s->opt.script_text = arena_strndup(s->arena, sb.buf, sb.len);
	sb_free(&sb);
	return 0;
}

static void remove_tmpdirs(struct remote *r)
{
	int i;

	for (i = 0; i < r->nbuilds; i++) {
		const char *t = r->builds[i].tmp;

		if (!t || !*t)
			continue;
		if (r->s->opt.keep_tmpdir) {
			fprintf(stderr, "Keeping temporary directory \"%s\"\n",
				t);
			continue;
		}
		if (system(arena_printf(r->s->arena, "rm -rf %s",
					sh_quote(r->s->arena, t))) != 0)
			fprintf(stderr, "stap: warning: could not remove "
				"'%s'\n", t);
	}
}

static int hosts_init(struct remote *r)
{
	struct session *s = r->s;
	int i;

	r->nhosts = s->opt.remotes.n;
	r->hosts = arena_alloc(s->arena, sizeof(*r->hosts) *
			       (size_t)r->nhosts);
	r->builds = arena_alloc(s->arena, sizeof(*r->builds) *
				(size_t)r->nhosts);
	for (i = 0; i < r->nhosts; i++) {
		struct host *h = &r->hosts[i];

		h->index = i;
		h->url = s->opt.remotes.items[i];
		cmdline_remote_url(s->arena, h->url, &h->u);
		h->out = (struct stream){ .fd = -1, .out = stdout };
		h->err = (struct stream){ .fd = -1, .out = stderr };
		h->ctl = -1;
		h->staprun = s->opt.remote_staprun ? s->opt.remote_staprun :
			     h->u.direct ? driver_staprun_path(s) : "staprun";
	}
	return 0;
}

int remote_run(struct session *s)
{
	struct remote r = { .s = s };
	int i, rc = 0;

	read_stdin_script(s);
	hosts_init(&r);
	ssh_command(&r);
	r.line_mode = s->opt.remote_prefix || r.nhosts > 1;
	if (pipe2(sig_fds, O_CLOEXEC | O_NONBLOCK) < 0) {
		diag_error_noloc(s, "cannot make a pipe: %s",
				 strerror(errno));
		return 1;
	}
	set_signals(on_stop_signal);
	for (i = 0; i < r.nhosts; i++)
		host_ask(&r, &r.hosts[i]);
	loop(&r);
	set_signals(SIG_DFL);
	close(sig_fds[0]);
	close(sig_fds[1]);
	remove_tmpdirs(&r);
	for (i = 0; i < r.nhosts; i++) {
		sb_free(&r.hosts[i].out.text);
		sb_free(&r.hosts[i].err.text);
		if (r.hosts[i].status > rc)
			rc = r.hosts[i].status;
	}
	return rc;
}
