/* tapset-api.h - the runtime services that embedded C in the tapset
 * library may call, and the probe-type codes it may test.  Nothing else
 * in the runtime is visible to tapset code; every entry states its
 * contract so either side can change without reading the other.
 */
#ifndef TAPIR_RUNTIME_TAPSET_API_H
#define TAPIR_RUNTIME_TAPSET_API_H

#include <linux/types.h>
#include <linux/sched.h>
#include <linux/ptrace.h>

/*
 * What the translator provides inside an embedded function body (not
 * declared here, listed so this file is the whole picture):
 *   STAP_ARG_name     a parameter: int64_t, or const char * for strings
 *   STAP_RETVALUE     the result: an int64_t lvalue, or a char array of
 *                     MAXSTRINGLEN bytes for string functions
 *   STAP_RETURN(v)    set the result and leave the body (a string is
 *                     copied, cut to MAXSTRINGLEN - 1 bytes)
 *   STAP_ERROR(f,...) raise a script error (printf-style) and leave
 *   STAP_PRINTF(f,...) print to the script's output
 *   CONTEXT           this CPU's struct context *; tapset code may read
 *                     regs, uregs, ri, probe_point, probe_name,
 *                     probe_type and user_mode_p, nothing else
 * Arguments and the result never share storage.
 */
struct context;

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif

/* Deepest stack that backtrace functions ask the unwinder for. */
#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif

/* CONTEXT->probe_type: the low-level mechanism that fired the probe. */
enum stp_probe_type {
	STP_PROBE_BEGIN,
	STP_PROBE_END,
	STP_PROBE_ERROR,
	STP_PROBE_TIMER,		/* timer.jiffies, timer.hz */
	STP_PROBE_HRTIMER,		/* timer.ms and friends */
	STP_PROBE_PROFILE_TIMER,	/* timer.profile.tick */
	STP_PROBE_KPROBE,
	STP_PROBE_KRETPROBE,
	STP_PROBE_UPROBE,
	STP_PROBE_URETPROBE,
	STP_PROBE_TRACEPOINT,
	STP_PROBE_PERF,
	STP_PROBE_PROCFS,
	STP_PROBE_NETFILTER,
	STP_PROBE_HWBKPT,
	STP_PROBE_PROCESS,		/* task finder: begin/end/thread.* */
	STP_PROBE_PROCESS_SYSCALL,	/* process.syscall[.return] */
	STP_PROBE_SYSCALL,		/* kernel.syscall[.return]: c->targs
					 * holds the number and arguments */
	STP_PROBE_NTYPES,
};

/* ---- Memory: the only way tapset code touches kernel or user data --- */

/* Copy n bytes from kernel address addr to dst.  Never faults: returns
 * 0, or -EFAULT when any byte is unreadable (dst is then undefined).
 */
int _stp_kread(void *dst, unsigned long addr, size_t n);

/* The same for the user address space of current.  Returns -EFAULT for
 * a kernel thread.  When the probe context may sleep (uprobes), a page
 * that is not resident is faulted in rather than reported.
 */
int _stp_uread(void *dst, unsigned long addr, size_t n);

/* Copy a NUL-terminated string of at most n - 1 bytes from kernel
 * (kstrncpy) or current's user (ustrncpy) memory into dst, which is
 * always NUL-terminated when n > 0.  Returns the length copied
 * (without the NUL; n - 1 means the source may go on), or -EFAULT.
 * User memory is read as _stp_uread reads it (faulted in by uprobes).
 */
long _stp_kstrncpy(char *dst, unsigned long addr, size_t n);

/* Pretty-printing of target values into a MAXSTRINGLEN buffer: text, a
 * number (how: 0 decimal, 1 hex), a char* as a quoted string (the
 * pointer when unreadable), a char array of n bytes quoted (-EFAULT
 * when unreadable).
 */
void _stp_pp_cat(char *buf, const char *s);
void _stp_pp_num(char *buf, int64_t v, int how);
void _stp_pp_kstr(char *buf, unsigned long addr, size_t max);
int _stp_pp_karr(char *buf, unsigned long addr, size_t n);
/* The same for current's user memory. */
void _stp_pp_ustr(char *buf, unsigned long addr, size_t max);
int _stp_pp_uarr(char *buf, unsigned long addr, size_t n);
long _stp_ustrncpy(char *dst, unsigned long addr, size_t n);

/* Write n bytes from src to kernel or current's user memory.  Returns
 * 0 or -EFAULT.  Only reachable from guru-mode functions.
 */
int _stp_kwrite(unsigned long addr, const void *src, size_t n);
int _stp_uwrite(unsigned long addr, const void *src, size_t n);

/* ---- Probe context ------------------------------------------------- */

/* The user-mode registers of current as of the probe hit: CONTEXT->uregs
 * when the probe fired in user space, otherwise the registers saved on
 * entry to the kernel (task_pt_regs).  NULL for kernel threads.
 */
struct pt_regs *_stp_user_regs(struct context *c);

/* Address of the probe hit in kernel (user == 0) or user (user == 1)
 * space: the probed instruction for entry probes, the probed function's
 * entry for return probes (never a trampoline); for user == 1 in a
 * probe that is not a user probe, the user pc current will return to.
 * 0 when there is no such address.
 */
unsigned long _stp_probe_pc(struct context *c, int user);

/* Fill pcs[0..max) with the kernel (user == 0) or user (user == 1) call
 * chain at the probe hit: pcs[0] is the probe pc as _stp_probe_pc gives
 * it, then return addresses outward, with return-probe trampolines
 * already replaced by the real return address.  Returns how many were
 * stored (0 when no registers or unwind data are available).
 */
int _stp_stack_unwind(struct context *c, int user, unsigned long *pcs,
		      int max);

/* What the runtime knows about the code or data at an address. */
struct _stp_sym {
	const char *name;	/* symbol containing addr, NULL if unknown */
	unsigned long offset;	/* addr - symbol start; without a name,
				 * the offset in a user object's file */
	unsigned long size;	/* symbol size, 0 if unknown */
	const char *module;	/* "kernel", a module name, or the path of
				 * a user object; NULL if unknown */
};

/* Look addr up in the kernel (task == NULL) or in task's address space
 * using the symbol tables the module carries (-d, --ldd, the probed
 * objects) and kallsyms.  Fills *sym and returns 0 when at least the
 * module is known, -ENOENT otherwise.  The strings stay valid until
 * the probe handler returns (user paths: until the next lookup on this
 * CPU).  Never sleeps or allocates.
 */
int _stp_sym_lookup(unsigned long addr, struct task_struct *task,
		    struct _stp_sym *sym);

/* The source file and line of addr, in the kernel (task == NULL) or in
 * task's address space, from the line tables the module carries (the
 * probed kernel functions, the user objects of the session, when the
 * script uses a line function).  0, or -ENOENT when not known.  The
 * file name stays valid as long as the module.
 */
int _stp_line_lookup(unsigned long addr, struct task_struct *task,
		     const char **file, int *line);

/* ---- Session ------------------------------------------------------- */

/* The pid given with -x, or of the -c command; 0 when there is none. */
pid_t _stp_target_pid(void);

/* The pid of the stapio process that controls this module. */
pid_t _stp_stapio_pid(void);

/* Under stap --remote, the host's index (as --remote-prefix prints it)
 * and the URL it was named by; -1 and "" otherwise.
 */
int _stp_remote_index(void);
const char *_stp_remote_url(void);

/* 1 when current may be inspected by the user who started the session:
 * always for a privileged session, else when current belongs to that
 * user.  Guards the myproc-unprivileged functions.
 */
int _stp_is_myproc(void);

/* What the script's exit() does: the session moves to STOPPING, the
 * running handler finishes, later hits are ignored and the end probes
 * run.  Safe in any probe context.
 */
void _stp_request_exit(void);

/* Send "WARNING: <message>\n" to stapio's stderr (not the script's
 * output).  Formatting is printf-style; never sleeps.
 */
void _stp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Ask stapio to run cmd with /bin/sh -c as the user who started the
 * session, after the output already printed has been flushed.
 */
void _stp_system(const char *cmd);

/* Ask stapio to close the -o output file and open the next one. */
void _stp_switch_file(void);

#endif
