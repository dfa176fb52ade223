/* json.h - stap --json on staprun's side: the records a --json module
 * writes to its relay buffers (runtime/msg.h) decoded, CPU by CPU, into
 * one JSON object per line (doc/json.md).
 */
#ifndef TAPIR_JSON_H
#define TAPIR_JSON_H

#include <stddef.h>

struct json_cpu;

/* Where whole output lines go; 0 or -errno. */
typedef int (*json_out_fn)(void *ctx, const char *p, size_t n);

/* The decoder of one CPU's stream; flags are the TRANSPORT message's
 * (STP_TRANSPORT_JSON and the STP_JSON_FIELD_* bits).  NULL when memory
 * runs out.
 */
struct json_cpu *json_cpu_new(int cpu, unsigned int flags);
void json_cpu_free(struct json_cpu *j);
/* The next n bytes of the CPU's stream: every line they complete goes to
 * out, whole.  0, -errno from out, or -EPROTO on a stream that is not
 * records (reported once; the CPU's output is dropped from then on).
 */
int json_feed(struct json_cpu *j, const char *p, size_t n, json_out_fn out,
	      void *ctx);
/* The end of the stream (or of an output file): an unfinished line goes
 * out as an object marked "partial".
 */
int json_finish(struct json_cpu *j, json_out_fn out, void *ctx);

#endif
