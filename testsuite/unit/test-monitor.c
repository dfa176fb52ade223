/* test-monitor.c - staprun -M's live view (loader/monitor.c) without a
 * module or a terminal: a file stands for the module's "monitor" file,
 * other files for the terminal.  Checks the frame (header, globals,
 * probes sorted by a column, the output's last lines with control
 * characters shown as '?'), the keys (sort, pause, resume, reset, quit)
 * and the commands they write, and what is printed once the view
 * closes: the end probes' output on stdout, the messages on stderr.
 */
#include "../../loader/monitor.h"
#include "tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/test-monitor.XXXXXX";
static char report_path[256], out_path[256], key_path[256];

static const char report[] =
	"state running\n"
	"errors 1\n"
	"skipped 2\n"
	"probe 0 5 500 90 110 begin\n"
	"probe 1 900 9000 8 20 kernel.function(\"vfs_read\")\n"
	"probe 2 40 80000 1000 3000 timer.s(1)\n"
	"global n 42\n"
	"global s \"a?b\"\n"
	"global arr [3]\n"
	"global st @count=2 @sum=9\n"
	"global big (busy)\n"
	"newer key from a newer module\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* The whole of a file, malloc'd. */
static char *slurp(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return strdup(buf);
}

/* Run fn with fd 1 (or 2) going to out_path; what was written. */
static char *captured(int fd, void (*fn)(struct monitor *),
		      struct monitor *m)
{
	int saved = dup(fd), f;

	fflush(NULL);
	f = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(f, fd);
	close(f);
	fn(m);
	fflush(NULL);
	dup2(saved, fd);
	close(saved);
	return slurp(out_path);
}

static void refresh(struct monitor *m)
{
	monitor_refresh(m, true);
}

static enum monitor_action last_action;

/* Press keys: they come on stdin, a file here. */
static const char *pressed;

static void press(struct monitor *m)
{
	int saved = dup(STDIN_FILENO), f;

	write_file(key_path, pressed);
	f = open(key_path, O_RDONLY);
	dup2(f, STDIN_FILENO);
	close(f);
	last_action = monitor_keys(m);
	dup2(saved, STDIN_FILENO);
	close(saved);
}

static char *keys(struct monitor *m, const char *k)
{
	pressed = k;
	write_file(report_path, report);
	return captured(STDOUT_FILENO, press, m);
}

/* The command a key wrote over the start of the report file. */
static bool wrote(const char *cmd)
{
	char *got = slurp(report_path);
	bool ok = !strncmp(got, cmd, strlen(cmd));

	free(got);
	return ok;
}

static bool before(const char *s, const char *a, const char *b)
{
	const char *x = strstr(s, a), *y = strstr(s, b);

	return x && y && x < y;
}

static void test_frame(struct monitor *m)
{
	char *f = captured(STDOUT_FILENO, refresh, m);
	char row[256];

	tap_ok(strstr(f, "tapir monitor: t_mod") && strstr(f, "running") &&
	       strstr(f, "refresh 1 s"), "header: module, state, interval");
	tap_ok(strstr(f, "output buffers 8 KiB") && strstr(f, "errors 1") &&
	       strstr(f, "skipped 2"), "memory, errors and skipped probes");
	tap_ok(strstr(f, "globals:  n=42  s=\"a?b\"  arr: 3 elements  "
		      "st: @count=2 @sum=9  big: (busy)") != NULL,
	       "globals: number, string, array size, statistic, busy");
	tap_ok(before(f, "begin", "vfs_read") &&
	       before(f, "vfs_read", "timer.s(1)") && strstr(f, "index*"),
	       "probes in index order at first");
	snprintf(row, sizeof(row), "%6d %10d %10d %10d %10d  %s", 1, 900, 10,
		 8, 20, "kernel.function(\"vfs_read\")");
	tap_ok(strstr(f, row) != NULL,
	       "a probe's hits, avg, min and max cycles");
	tap_ok(strstr(f, "line two") && strstr(f, "?[31mred") &&
	       before(f, "line two", "?[31mred") && !strstr(f, "line one"),
	       "the output's last lines fit, escapes shown as '?'");
	tap_ok(strstr(f, "keys:  s sort") != NULL, "the keys' line");
	free(f);
}

static void test_keys(struct monitor *m)
{
	char *f;

	f = keys(m, "s");
	tap_ok(last_action == MONITOR_NONE && m->sort == 1 &&
	       strstr(f, "hits*") && before(f, "vfs_read", "timer.s(1)") &&
	       before(f, "timer.s(1)", "begin"),
	       "s: sorted by hits, most first");
	free(f);
	f = keys(m, "ss");
	tap_ok(m->sort == 3 && strstr(f, "min*") &&
	       before(f, "timer.s(1)", "begin") &&
	       before(f, "begin", "vfs_read"), "s s: sorted by min");
	free(f);
	free(keys(m, "p"));
	tap_ok(wrote("pause") && m->paused, "p: pause");
	f = captured(STDOUT_FILENO, refresh, m);
	tap_ok(m->paused && strstr(f, "[paused]"), "paused: said below");
	free(f);
	free(keys(m, "p"));
	tap_ok(wrote("resume") && !m->paused, "p again: resume");
	free(keys(m, "pr"));
	tap_ok(wrote("resume") && !m->paused, "r: resume");
	free(keys(m, "c"));
	tap_ok(wrote("reset"), "c: reset");
	f = keys(m, "h");
	tap_ok(m->help && strstr(f, "q  quit: stop the script"), "h: help");
	free(f);
	free(keys(m, "h"));
	free(keys(m, "x"));
	tap_ok(last_action == MONITOR_NONE && !m->help,
	       "h again hides it; other keys do nothing");
	free(keys(m, "q"));
	tap_ok(last_action == MONITOR_QUIT, "q: quit");
	free(keys(m, "\003"));
	tap_ok(last_action == MONITOR_QUIT, "a Ctrl-C byte: quit");
}

static char *end_err;

/* monitor_end, its stderr kept in end_err. */
static void end(struct monitor *m)
{
	char path[300];
	int saved = dup(STDERR_FILENO), f;

	snprintf(path, sizeof(path), "%s/err", dir);
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(f, STDERR_FILENO);
	close(f);
	monitor_end(m);
	dup2(saved, STDERR_FILENO);
	close(saved);
	end_err = slurp(path);
	unlink(path);
}

static void test_end(struct monitor *m)
{
	char *f;

	tap_ok(monitor_message(m, "WARNING: w\n", 11), "a message is kept");
	monitor_stopping(m);
	monitor_output(m, "the end probe\n", 14);
	f = captured(STDOUT_FILENO, end, m);
	tap_ok(!m->on && !strcmp(f, "\033[?25h\033[?1049lthe end probe\n"),
	       "the view closes, then the end probes' output");
	tap_str_eq(end_err, "WARNING: w\n",
		   "the messages on stderr once it closed");
	free(f);
	free(end_err);
	tap_ok(!monitor_message(m, "x\n", 2), "no view: messages go as usual");
}

int main(void)
{
	struct monitor *m = calloc(1, sizeof(*m));
	int i;

	if (!m || !mkdtemp(dir))
		return 2;
	snprintf(report_path, sizeof(report_path), "%s/monitor", dir);
	snprintf(out_path, sizeof(out_path), "%s/out", dir);
	snprintf(key_path, sizeof(key_path), "%s/keys", dir);
	write_file(report_path, report);
	/* not a terminal: the size comes from the environment */
	setenv("LINES", "30", 1);
	setenv("COLUMNS", "100", 1);
	monitor_init(m, dir, "t_mod", 1, 8192);
	/* the view without a terminal to take */
	m->on = true;
	clock_gettime(CLOCK_MONOTONIC, &m->start);
	monitor_output(m, "line one\n", 9);
	monitor_output(m, "line two\n\033[31mred\n", 19);
	/* the output's pane holds the last lines that fit: push the
	 * first out
	 */
	for (i = 0; i < 40; i++)
		monitor_output(m, "filler\n", 7);
	monitor_output(m, "line two\n\033[31mred\n", 19);
	test_frame(m);
	test_keys(m);
	test_end(m);
	unlink(report_path);
	unlink(out_path);
	unlink(key_path);
	rmdir(dir);
	free(m);
	return tap_done();
}
