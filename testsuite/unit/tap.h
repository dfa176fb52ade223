/* tap.h - the few helpers every host unit test uses to print TAP:
 * "ok N - name" / "not ok N - name", diagnostics as "# ..." lines,
 * and the plan at the end.  The exit status says whether all passed.
 */
#ifndef TAPIR_TAP_H
#define TAPIR_TAP_H

#include <stdbool.h>

/* Record one result; returns cond so a test can stop early on failure. */
bool tap_ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A "# ..." diagnostic line under the last result. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Compare strings (either may be NULL), printing both on a mismatch. */
bool tap_str_eq(const char *got, const char *want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool tap_int_eq(long long got, long long want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Print the plan "1..N"; returns the exit status for main(). */
int tap_done(void);

#endif
