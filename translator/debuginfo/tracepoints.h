/* tracepoints.h - the tracepoints of an installed kernel, read from the
 * trace event headers of its header tree, for kernel.trace("sys:name")
 * probes and `stap -l`/`-L` on kernels that need not be running.
 *
 * Only names are certain here: argument types are BTF's business
 * (the btf_trace_NAME typedefs); the TP_PROTO text kept per argument is
 * a fallback for when BTF is missing.
 */
#ifndef TAPIR_DEBUGINFO_TRACEPOINTS_H
#define TAPIR_DEBUGINFO_TRACEPOINTS_H

#include <stdbool.h>

struct ktp_catalog;	/* opaque: the events, sorted, and their arena */

/* The kernel's own limit: with CONFIG_BPF_EVENTS every tracepoint gets
 * a BPF stub that calls bpf_trace_run<N>, and those exist only up to
 * 12 arguments, so a kernel with a wider tracepoint does not build.
 * A wider one in the headers is left out and reported by ktp_warnings().
 */
#define KTP_MAX_ARGS 12

/* One tracepoint.  Every string belongs to the catalog it came from and
 * stays valid until ktp_free(); the caller frees nothing.
 */
struct ktp_event {
	const char *system;	/* TRACE_SYSTEM at its definition: "sched" */
	const char *name;	/* "sched_switch" */
	const char *header;	/* relative to the tree that holds it:
				 * "include/trace/events/sched.h" */
	bool raw;		/* DECLARE_TRACE: a tracepoint with no trace
				 * event (nothing in tracefs, no format) */
	int nargs;
	const char *arg_names[KTP_MAX_ARGS];	/* TP_ARGS order: "prev" */
	const char *arg_decls[KTP_MAX_ARGS];	/* its TP_PROTO text:
						 * "struct task_struct *prev" */
};

/* The catalog of kernel release kver, from the headers under
 * /lib/modules/KVER/build and the source tree it points at (Debian
 * splits them into -ARCH and -common packages).  Conditions on CONFIG_*
 * are decided by that tree's .config.  On failure returns NULL and, if
 * err is not NULL, sets *err to a malloc'd message the caller must
 * free().
 */
struct ktp_catalog *ktp_load(const char *kver, char **err);
/* The same for a build tree given by path (stap -r DIR, --sysroot). */
struct ktp_catalog *ktp_load_tree(const char *build_dir, char **err);
void ktp_free(struct ktp_catalog *c);

/* The event called name, in system if that is not NULL, or NULL.  Names
 * are unique across systems, as the kernel links every tracepoint under
 * its bare name.
 */
const struct ktp_event *ktp_find(const struct ktp_catalog *c,
				 const char *system, const char *name);

/* Call cb for each event whose system matches system_glob and whose
 * name matches name_glob (fnmatch(3); NULL matches anything), in
 * (system, name) strcmp order.  Returns the number of events reported.
 */
int ktp_each(const struct ktp_catalog *c, const char *system_glob,
	     const char *name_glob,
	     void (*cb)(const struct ktp_event *ev, void *arg), void *arg);

/* Number of events in the catalog. */
int ktp_count(const struct ktp_catalog *c);

/* The directory the event headers were read from; ktp_event.header is
 * relative to it.
 */
const char *ktp_source_dir(const struct ktp_catalog *c);

/* What the loader could not make sense of, as "header:line: message",
 * in the order met; *n gets the count.  Owned by the catalog.
 */
const char *const *ktp_warnings(const struct ktp_catalog *c, int *n);

#endif
