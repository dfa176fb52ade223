/* tap.c - TAP output for the host unit tests: numbering, the plan, and
 * the failure count that becomes the test program's exit status.
 */
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count;
static int tap_failed;

static bool tap_vok(bool cond, const char *fmt, va_list ap)
{
	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	/* Keep the order with anything the code under test prints. */
	fflush(stdout);
	return cond;
}

bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	return cond;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

bool tap_str_eq(const char *got, const char *want, const char *fmt, ...)
{
	bool same = got && want ? strcmp(got, want) == 0 : got == want;
	va_list ap;

	va_start(ap, fmt);
	tap_vok(same, fmt, ap);
	va_end(ap);
	if (!same) {
		tap_diag("got:  %s%s%s", got ? "\"" : "", got ? got : "NULL",
			 got ? "\"" : "");
		tap_diag("want: %s%s%s", want ? "\"" : "",
			 want ? want : "NULL", want ? "\"" : "");
	}
	return same;
}

bool tap_int_eq(long long got, long long want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vok(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		tap_diag("got %lld, want %lld", got, want);
	return got == want;
}

int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}
