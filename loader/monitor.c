/* monitor.c - staprun -M: the live view.  Each refresh reads the
 * module's report (one "key values" line each: state, errors, skipped,
 * probe, global), sorts the probes and draws one frame in the
 * terminal's alternate screen; keys are read raw from stdin.
 */
#define _GNU_SOURCE
#include "monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define REPORT_MAX (4 << 20)		/* bytes of report read at most */

struct mon_probe {
	long long index, hits, cycles, min, max;
	const char *pp;
};

struct mon_report {
	char *text;			/* the report, cut into lines */
	const char *state;
	long long errors, skipped;
	struct mon_probe *probes;
	int nprobes;
	const char **globals;		/* "NAME VALUE" */
	int nglobals;
};

/* The columns the probes can be sorted by, as the header names them. */
enum { COL_INDEX, COL_HITS, COL_AVG, COL_MIN, COL_MAX, COL_NAME, NCOLS };
static const char *const col_names[NCOLS] = {
	"index", "hits", "avg", "min", "max", "probe",
};

/* A frame is built in memory, then written at once. */
struct frame {
	char *buf;
	size_t len, size;
	int rows, cols, row;
	bool oom;
};

static int write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void monitor_init(struct monitor *m, const char *dir, const char *module,
		  int interval, unsigned long long buffers)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->path, sizeof(m->path), "%s/monitor", dir);
	m->module = module;
	m->interval = interval > 0 ? interval : 1;
	m->buffers = buffers;
	m->sort = COL_INDEX;
}

void monitor_begin(struct monitor *m)
{
	struct termios raw;
	static const char enter[] = "\033[?1049h\033[?25l\033[H\033[2J";

	clock_gettime(CLOCK_MONOTONIC, &m->start);
	m->next = m->start;
	if (m->on || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) ||
	    tcgetattr(STDIN_FILENO, &m->saved) < 0)
		return;
	raw = m->saved;
	/* keys one at a time, not echoed; Ctrl-C still stops the run */
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) < 0)
		return;
	m->on = true;
	write_all(STDOUT_FILENO, enter, sizeof(enter) - 1);
	monitor_refresh(m, true);
}

int monitor_poll_fd(const struct monitor *m)
{
	return m->on ? STDIN_FILENO : -1;
}

int monitor_timeout(const struct monitor *m, int max)
{
	struct timespec now;
	double ms;

	if (!m->on)
		return max;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = elapsed(&now, &m->next) * 1000;
	if (ms <= 0)
		return 0;
	return ms < max ? (int)ms + 1 : max;
}

/* ---- The report ------------------------------------------------- */

static char *read_report(const char *path)
{
	size_t len = 0, size = 8192;
	char *buf = malloc(size), *nb;
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (size - len < 4096 && size < REPORT_MAX) {
			nb = realloc(buf, size * 2);
			if (!nb)
				break;
			buf = nb;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (size - len <= 1)
			break;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static void report_free(struct mon_report *r)
{
	free(r->text);
	free(r->probes);
	free(r->globals);
	memset(r, 0, sizeof(*r));
}

static void parse_probe(struct mon_report *r, char *rest)
{
	struct mon_probe *p = &r->probes[r->nprobes];
	int used = 0;

	if (sscanf(rest, "%lld %lld %lld %lld %lld %n", &p->index, &p->hits,
		   &p->cycles, &p->min, &p->max, &used) == 5 && used > 0) {
		p->pp = rest + used;
		r->nprobes++;
	}
}

/* Lines "KEY REST"; unknown keys (a newer module) are skipped. */
static int parse_report(struct mon_report *r, char *text)
{
	size_t lines = 1;
	char *p, *nl, *sp;

	memset(r, 0, sizeof(*r));
	r->text = text;
	r->state = "?";
	for (p = text; *p; p++)
		lines += *p == '\n';
	r->probes = calloc(lines, sizeof(*r->probes));
	r->globals = calloc(lines, sizeof(*r->globals));
	if (!r->probes || !r->globals)
		return -ENOMEM;
	for (p = text; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		sp = strchr(p, ' ');
		if (!sp)
			continue;
		*sp++ = '\0';
		if (!strcmp(p, "state"))
			r->state = sp;
		else if (!strcmp(p, "errors"))
			r->errors = atoll(sp);
		else if (!strcmp(p, "skipped"))
			r->skipped = atoll(sp);
		else if (!strcmp(p, "probe"))
			parse_probe(r, sp);
		else if (!strcmp(p, "global"))
			r->globals[r->nglobals++] = sp;
	}
	return 0;
}

static long long avg(const struct mon_probe *p)
{
	return p->hits ? p->cycles / p->hits : 0;
}

static int sort_col;

/* Numbers in descending order, the index and the name ascending. */
static int cmp_probe(const void *a, const void *b)
{
	const struct mon_probe *x = a, *y = b;
	long long u, v;

	switch (sort_col) {
	case COL_HITS:
		u = y->hits, v = x->hits;
		break;
	case COL_AVG:
		u = avg(y), v = avg(x);
		break;
	case COL_MIN:
		u = y->min, v = x->min;
		break;
	case COL_MAX:
		u = y->max, v = x->max;
		break;
	case COL_NAME:
		return strcmp(x->pp, y->pp);
	default:
		u = x->index, v = y->index;
		break;
	}
	if (u != v)
		return u < v ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* ---- Drawing ----------------------------------------------------- */

static void put(struct frame *f, const char *p, size_t n)
{
	char *nb;

	if (f->oom)
		return;
	if (f->len + n + 1 > f->size) {
		size_t size = (f->size ? f->size * 2 : 8192) + n;

		nb = realloc(f->buf, size);
		if (!nb) {
			f->oom = true;
			return;
		}
		f->buf = nb;
		f->size = size;
	}
	memcpy(f->buf + f->len, p, n);
	f->len += n;
}

/* One row of the screen: cut to the width, control characters shown
 * as '?', the rest of the row cleared.
 */
static void row(struct frame *f, const char *text, size_t n)
{
	size_t i, w = 0;
	char c;

	if (f->row >= f->rows)
		return;
	for (i = 0; i < n && w < (size_t)f->cols; i++) {
		c = text[i];
		if (c == '\t')
			c = ' ';
		else if ((unsigned char)c < ' ' || c == 0x7f)
			c = '?';
		put(f, &c, 1);
		/* a UTF-8 sequence takes one column */
		if (((unsigned char)c & 0xc0) != 0x80)
			w++;
	}
	put(f, "\033[K", 3);
	if (++f->row < f->rows)
		put(f, "\r\n", 2);
}

static void rowf(struct frame *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void rowf(struct frame *f, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	row(f, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void screen_size(struct frame *f)
{
	struct winsize ws = { 0 };
	const char *e;

	f->rows = 24;
	f->cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row &&
	    ws.ws_col) {
		f->rows = ws.ws_row;
		f->cols = ws.ws_col;
		return;
	}
	/* a serial line knows no size: the environment may say it */
	e = getenv("LINES");
	if (e && atoi(e) > 4)
		f->rows = atoi(e);
	e = getenv("COLUMNS");
	if (e && atoi(e) > 19)
		f->cols = atoi(e);
}

/* The module's size in memory, from sysfs; 0 when unknown. */
static unsigned long long module_size(const char *module)
{
	char path[512];
	unsigned long long v = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/module/%s/coresize", module);
	fp = fopen(path, "re");
	if (!fp)
		return 0;
	if (fscanf(fp, "%llu", &v) != 1)
		v = 0;
	fclose(fp);
	return v;
}

static void draw_header(struct monitor *m, struct frame *f,
			const struct mon_report *r)
{
	struct timespec now;
	long up;

	clock_gettime(CLOCK_MONOTONIC, &now);
	up = (long)elapsed(&m->start, &now);
	rowf(f, "tapir monitor: %s   uptime %ld:%02ld:%02ld   %s   "
	     "refresh %d s", m->module, up / 3600, up / 60 % 60, up % 60,
	     r->state, m->interval);
	rowf(f, "memory: module %llu KiB, output buffers %llu KiB   "
	     "errors %lld   skipped %lld", module_size(m->module) / 1024,
	     m->buffers / 1024, r->errors, r->skipped);
}

/* The globals, "name=value" packed on as few rows as the width allows. */
static void draw_globals(struct frame *f, const struct mon_report *r)
{
	char line[1024];
	size_t len = 0, n;
	const char *g, *sp;
	int i;

	len = (size_t)snprintf(line, sizeof(line), "globals:");
	for (i = 0; i < r->nglobals; i++) {
		g = r->globals[i];
		sp = strchr(g, ' ');
		n = sp ? (size_t)(sp - g) : strlen(g);
		if (len > 9 && len + n + 3 + strlen(sp ? sp : "") >
		    (size_t)f->cols) {
			row(f, line, len);
			len = (size_t)snprintf(line, sizeof(line), "        ");
		}
		if (sp && sp[1] == '[')	/* an array: its size */
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						"  %.*s: %d elements", (int)n,
						g, atoi(sp + 2));
		else if (sp && (sp[1] == '@' || sp[1] == '('))
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						"  %.*s: %s", (int)n, g,
						sp + 1);
		else
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						"  %.*s=%s", (int)n, g,
						sp ? sp + 1 : "");
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
	}
	if (!r->nglobals)
		len += (size_t)snprintf(line + len, sizeof(line) - len,
					"  (none)");
	row(f, line, len);
}

static void draw_probes(struct monitor *m, struct frame *f,
			struct mon_report *r, int room)
{
	char head[NCOLS][16];
	int i;

	for (i = 0; i < NCOLS; i++)
		snprintf(head[i], sizeof(head[i]), "%s%s", col_names[i],
			 i == m->sort ? "*" : "");
	rowf(f, "%6s %10s %10s %10s %10s  %s  (cycles)", head[COL_INDEX],
	     head[COL_HITS], head[COL_AVG], head[COL_MIN], head[COL_MAX],
	     head[COL_NAME]);
	sort_col = m->sort;
	qsort(r->probes, (size_t)r->nprobes, sizeof(*r->probes), cmp_probe);
	for (i = 0; i < r->nprobes && i < room; i++) {
		const struct mon_probe *p = &r->probes[i];

		rowf(f, "%6lld %10lld %10lld %10lld %10lld  %s", p->index,
		     p->hits, avg(p), p->min, p->max, p->pp);
	}
	if (r->nprobes > room)
		rowf(f, "  ... %d more", r->nprobes - room);
}

/* The last lines of output that fit in rows. */
static void draw_output(struct monitor *m, struct frame *f, int rows)
{
	const char *start = m->tail, *end = m->tail + m->tail_len, *p;
	int n = 0;

	if (end > start && end[-1] == '\n')
		end--;
	for (p = end; p > start && n < rows; p--)
		if (p[-1] == '\n' && ++n == rows)
			break;
	if (rows <= 0)
		return;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		row(f, p, (size_t)(nl - p));
		p = nl + 1;
	}
}

static void draw_help(struct frame *f)
{
	row(f, "", 0);
	rowf(f, "  s  sort the probes by the next column (marked *)");
	rowf(f, "  p  pause the probes, or resume them (also r)");
	rowf(f, "  c  reset the globals and the probes' counts");
	rowf(f, "  q  quit: stop the script, run its end probes");
	rowf(f, "  h  show or hide this help");
}

static void draw(struct monitor *m, struct mon_report *r)
{
	struct frame f = { 0 };
	int room;

	screen_size(&f);
	put(&f, "\033[H", 3);
	draw_header(m, &f, r);
	draw_globals(&f, r);
	row(&f, "", 0);
	/* the probes get the upper half, the output the rest */
	room = (f.rows - f.row) / 2 - 1;
	if (room < 1)
		room = 1;
	draw_probes(m, &f, r, r->nprobes > room ? room - 1 : room);
	if (m->help) {
		draw_help(&f);
	} else {
		rowf(&f, "--- output %.*s", f.cols > 12 ? f.cols - 12 : 0,
		     "------------------------------------------------------"
		     "------------------------------------------------------"
		     "------------------------------------------------------");
		draw_output(m, &f, f.rows - f.row - 1);
	}
	while (f.row < f.rows - 1)
		row(&f, "", 0);
	rowf(&f, "%s  s sort  p pause/resume  c reset  q quit  h help",
	     m->paused ? "[paused]" : "keys:");
	put(&f, "\033[J", 3);
	if (!f.oom)
		write_all(STDOUT_FILENO, f.buf, f.len);
	free(f.buf);
}

void monitor_refresh(struct monitor *m, bool force)
{
	struct mon_report r;
	struct timespec now;
	char *text;

	if (!m->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!force && elapsed(&now, &m->next) > 0)
		return;
	m->next = now;
	m->next.tv_sec += m->interval;
	text = read_report(m->path);
	if (!text)
		text = strdup("state (no report from the module)\n");
	if (!text)
		return;
	if (parse_report(&r, text) == 0)
		draw(m, &r);
	report_free(&r);
}

/* ---- Keys and commands ------------------------------------------- */

static void command(struct monitor *m, const char *cmd)
{
	int fd = open(m->path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	write_all(fd, cmd, strlen(cmd));	/* fails once it is going */
	close(fd);
}

enum monitor_action monitor_keys(struct monitor *m)
{
	enum monitor_action act = MONITOR_NONE;
	char keys[64];
	ssize_t n, i;

	if (!m->on)
		return act;
	n = read(STDIN_FILENO, keys, sizeof(keys));
	for (i = 0; i < n; i++) {
		switch (keys[i]) {
		case 's':
			m->sort = (m->sort + 1) % NCOLS;
			break;
		case 'p':
			m->paused = !m->paused;
			command(m, m->paused ? "pause" : "resume");
			break;
		case 'r':
			m->paused = false;
			command(m, "resume");
			break;
		case 'c':
			command(m, "reset");
			break;
		case 'h':
			m->help = !m->help;
			break;
		case 'q':
		case '\003':	/* Ctrl-C that raised no SIGINT (--vm) */
			act = MONITOR_QUIT;
			break;
		default:
			continue;
		}
	}
	if (n > 0)
		monitor_refresh(m, true);
	return act;
}

/* ---- Output ------------------------------------------------------ */

/* Append to a growing buffer; false when out of memory. */
static bool keep(char **buf, size_t *len, size_t *size, const char *p,
		 size_t n)
{
	char *nb;
	size_t want;

	if (*len + n > *size) {
		want = (*size ? *size * 2 : 8192) + n;
		nb = realloc(*buf, want);
		if (!nb)
			return false;
		*buf = nb;
		*size = want;
	}
	memcpy(*buf + *len, p, n);
	*len += n;
	return true;
}

static void keep_after(struct monitor *m, const char *p, size_t n)
{
	if (!m->after_lost &&
	    !keep(&m->after, &m->after_len, &m->after_size, p, n))
		m->after_lost = true;
}

int monitor_output(void *ctx, const char *p, size_t n)
{
	struct monitor *m = ctx;
	size_t room;

	if (!m->on)
		return write_all(STDOUT_FILENO, p, n);
	if (m->stopping)
		keep_after(m, p, n);
	if (n >= MONITOR_TAIL) {
		p += n - MONITOR_TAIL;
		n = MONITOR_TAIL;
	}
	room = MONITOR_TAIL - n;
	if (m->tail_len > room) {
		memmove(m->tail, m->tail + m->tail_len - room, room);
		m->tail_len = room;
	}
	memcpy(m->tail + m->tail_len, p, n);
	m->tail_len += n;
	return 0;
}

bool monitor_message(struct monitor *m, const char *p, size_t n)
{
	if (!m->on)
		return false;
	if (!keep(&m->msgs, &m->msgs_len, &m->msgs_size, p, n))
		return false;	/* to stderr now, then */
	/* in the view among the output, not kept for after it */
	if (m->stopping) {
		m->stopping = false;
		monitor_output(m, p, n);
		m->stopping = true;
	} else {
		monitor_output(m, p, n);
	}
	return true;
}

void monitor_stopping(struct monitor *m)
{
	m->stopping = true;
}

void monitor_end(struct monitor *m)
{
	static const char leave[] = "\033[?25h\033[?1049l";

	if (m->on) {
		m->on = false;
		tcsetattr(STDIN_FILENO, TCSANOW, &m->saved);
		write_all(STDOUT_FILENO, leave, sizeof(leave) - 1);
		if (m->after_lost)
			fputs("staprun: out of memory for the end of the "
			      "output\n", stderr);
	}
	if (m->after_len)
		write_all(STDOUT_FILENO, m->after, m->after_len);
	if (m->msgs_len)
		write_all(STDERR_FILENO, m->msgs, m->msgs_len);
	free(m->msgs);
	m->msgs = NULL;
	m->msgs_len = m->msgs_size = 0;
	free(m->after);
	m->after = NULL;
	m->after_len = m->after_size = 0;
}
